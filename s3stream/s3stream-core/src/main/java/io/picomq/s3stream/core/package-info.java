/**
 * The storage pipeline, assembled: {@link io.picomq.s3stream.core.Engine} wires the WAL, the log
 * cache ({@code logcache}), the write path and open streams ({@code stream}), uploads ({@code
 * upload}), recovery ({@code recovery}), the read path and block cache ({@code read}, {@code
 * blockcache}), compaction ({@code compaction}) and metrics ({@code metrics}) into one {@link
 * io.picomq.s3stream.api.StreamEngine}. The write path, its ordering rules and recovery are
 * specified in {@code s3stream/specification/pipeline.md}.
 */
package io.picomq.s3stream.core;
