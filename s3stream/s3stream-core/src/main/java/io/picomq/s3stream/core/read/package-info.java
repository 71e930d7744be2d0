/**
 * The read path for committed data: finds the objects holding a stream's offsets through the
 * catalog ({@code ObjectManager.getObjects}), checks that they cover the range without a gap, reads
 * their blocks through the block cache and decodes the batches; and reads ahead for sequential
 * readers. {@link io.picomq.s3stream.core.read.StorageReader} is the entry point. Design and
 * figures: {@code s3stream/specification/read-path.md}.
 */
package io.picomq.s3stream.core.read;
