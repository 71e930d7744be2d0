/**
 * Object storage: one asynchronous contract ({@link io.picomq.s3stream.objectstore.ObjectStore})
 * with an in-memory, a local-directory ({@code file://}) and an S3-compatible ({@code s3://})
 * implementation, a retrying decorator, and the parser for {@code bucketId@uri} storage URIs.
 */
package io.picomq.s3stream.objectstore;
