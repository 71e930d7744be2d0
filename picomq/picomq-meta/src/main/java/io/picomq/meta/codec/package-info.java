/**
 * The binary forms of the metadata plane, big-endian and versioned: one command and a whole-state
 * snapshot. A log row (a batch of encoded commands) is the SQL log's own format, {@code
 * io.picomq.sql.log.RowCodec}; this module knows nothing of it. Decoding is all or nothing: bytes
 * that are truncated, carry trailing garbage, name an unknown type or version, or describe an
 * invalid value raise {@link io.picomq.meta.codec.MetadataDecodeException}, never a partial result.
 */
package io.picomq.meta.codec;
