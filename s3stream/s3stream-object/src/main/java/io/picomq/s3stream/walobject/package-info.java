/**
 * The objects a node writes under its own key prefix: WAL objects (a header followed by framed WAL
 * records), their keys and the key parser recovery lists them with, and the node's range index
 * object. Byte layouts are in {@code s3stream/specification/wal-object.md}; the framing of each
 * record is {@link io.picomq.s3stream.codec.WalRecordCodec}'s.
 */
package io.picomq.s3stream.walobject;
