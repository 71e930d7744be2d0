package io.picomq.frontend.pico;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Encoded SSE record events shared by every feed of a node. A record is the same event for every
 * reader (id and JSON depend only on the record), so when two thousand readers of one stream wake
 * for the same record, it is encoded once, not two thousand times. Keyed by the stream's
 * incarnation id and the seq: a record at a seq never changes, and a name deleted and created again
 * gets a new id. Bounded by bytes; when full it starts over (the entries that matter are the few
 * newest, which live readers ask for right away).
 */
final class RecordEvents {
  private static final long MAX_BYTES = 16L << 20;
  private static final int MAX_EVENT_BYTES = 64 << 10;

  private record Key(long streamId, long seq) {}

  private final ConcurrentHashMap<Key, byte[]> events = new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();

  /** The event of record {@code seq} of stream {@code streamId}, encoded by {@code encode}. */
  byte[] get(long streamId, long seq, Supplier<byte[]> encode) {
    Key key = new Key(streamId, seq);
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
