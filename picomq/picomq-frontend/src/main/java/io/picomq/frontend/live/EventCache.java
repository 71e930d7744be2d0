package io.picomq.frontend.live;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Encoded SSE events shared by every response of a node. An event that carries records is the same
 * for every reader (it depends only on those records), so when two thousand readers of one stream
 * wake for the same append, it is encoded once, not two thousand times. Keyed by the stream's
 * incarnation id and the range of seqs the event carries: records in a range never change, and a
 * name deleted and created again gets a new id. Bounded by bytes; when full it starts over (the
 * entries that matter are the few newest, which live readers ask for right away).
 */
public final class EventCache {
  private static final long MAX_BYTES = 16L << 20;
  private static final int MAX_EVENT_BYTES = 64 << 10;

  private record Key(long streamId, long fromSeq, long toSeq) {}

  private final ConcurrentHashMap<Key, byte[]> events = new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();

  /**
   * The event carrying the records {@code fromSeq} (inclusive) to {@code toSeq} (exclusive) of
   * stream {@code streamId}, encoded by {@code encode} unless cached. Callers must not change the
   * array.
   */
  public byte[] get(long streamId, long fromSeq, long toSeq, Supplier<byte[]> encode) {
    Key key = new Key(streamId, fromSeq, toSeq);
    byte[] cached = events.get(key);
    if (cached != null) {
      return cached;
    }
    byte[] event = encode.get();
    if (event.length <= MAX_EVENT_BYTES) {
      if (bytes.addAndGet(event.length) > MAX_BYTES) {
        events.clear();
        bytes.set(event.length);
      }
      events.putIfAbsent(key, event);
    }
    return event;
  }
}
