package io.picomq.s3stream.core.blockcache;

import io.netty.buffer.ByteBuf;

/**
 * Bytes of an object range served by the {@link BlockCache}.
 *
 * <p>Ownership: {@code bytes} may share memory with cached pages, so the receiver must not write
 * into it; the receiver releases it (keeping that memory alive until then, also past an eviction).
 *
 * @param bytes exactly the requested range as readable bytes
 * @param touchedStorage whether some page had to come from storage for this read (a GET this read
 *     started, or one already in flight that it joined), as opposed to pages already in memory
 */
public record RangeBytes(ByteBuf bytes, boolean touchedStorage) {}
