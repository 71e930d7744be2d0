/**
 * Storage URIs ({@code bucketId@scheme://location?params}): parsing them, and opening the object
 * store one names.
 */
package io.picomq.s3stream.objectstore.uri;
