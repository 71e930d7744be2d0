/**
 * The engine's byte-level codecs: the record batch (the unit of append, {@link
 * io.picomq.s3stream.codec.RecordBatchCodec}), the WAL record framing that wraps one encoded batch
 * with a checksummed header ({@link io.picomq.s3stream.codec.WalRecordCodec}), and the CRC32
 * variant the upstream uses ({@link io.picomq.s3stream.codec.Crc32}). Every decoder here rejects
 * malformed input with a {@link io.picomq.s3stream.codec.CorruptDataException} naming the {@link
 * io.picomq.s3stream.codec.CorruptDataException.Reason}; none lets a buffer exception escape.
 */
package io.picomq.s3stream.codec;
