/**
 * The {@code s3://} backend: any S3-compatible store through the AWS SDK's synchronous client on an
 * Apache connection pool, with blocking calls moved onto a bounded pool of our own.
 */
package io.picomq.s3stream.objectstore.s3;
