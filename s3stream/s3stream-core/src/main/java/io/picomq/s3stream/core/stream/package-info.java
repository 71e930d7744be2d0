/**
 * An open stream on its owner, and the write path behind it: {@link
 * io.picomq.s3stream.core.stream.WritePath} assigns offsets and appends to the WAL and the log
 * cache, {@link io.picomq.s3stream.core.stream.Confirmer} acknowledges appends in order as the WAL
 * confirms them, {@link io.picomq.s3stream.core.stream.Fetcher} reads the log cache and stitches in
 * committed data from below it. The rules are in {@code s3stream/specification/pipeline.md}.
 */
package io.picomq.s3stream.core.stream;
