/**
 * The binary forms of the metadata plane, big-endian and versioned: one command, one log row (up to
 * 256 commands) and a whole-state snapshot. Decoding is all or nothing: bytes that are truncated,
 * carry trailing garbage, name an unknown type or version, or describe an invalid value raise
 * {@link io.picomq.meta.codec.MetadataDecodeException}, never a partial result.
 */
package io.picomq.meta.codec;
