/**
 * The engine's facade: the only package of s3stream the host may use. Everything a host needs
 * (configuration, the builder, the stream and object manager contracts it implements, and the
 * stream API) is exported from here; the build rejects host code that reaches past it.
 */
package io.picomq.s3stream.api;
