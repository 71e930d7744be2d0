/**
 * The data object format: how record batches of many streams are laid out in one immutable object
 * ({@code [data block]* [index block] [footer]}), how an object is written ({@link
 * io.picomq.s3stream.object.ObjectWriter}, {@link
 * io.picomq.s3stream.object.CompositeObjectWriter}), located and read back ({@link
 * io.picomq.s3stream.object.ObjectReader}), and where it lives in the bucket ({@link
 * io.picomq.s3stream.object.ObjectNamespace}). Specification: {@code
 * s3stream/specification/object.md}.
 */
package io.picomq.s3stream.object;
