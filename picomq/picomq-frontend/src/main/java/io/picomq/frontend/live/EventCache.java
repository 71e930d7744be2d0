package io.picomq.frontend.live;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.function.Supplier;

/**
 * Encoded SSE events shared by every response of a node. An event that carries records is the same
 * for every reader (it depends only on those records), so when two thousand readers of one stream
 * wake for the same append, it is encoded once, not two thousand times. Keyed by the stream's
 * incarnation id and the range of seqs the event carries: records in a range never change, and a
 * name deleted and created again gets a new id.
 *
 * <p>Bounded by bytes (16 MiB; an event over 64 KiB is not kept), by Caffeine: when full it drops
 * the entries least likely to be asked for again, not everything. The entries that matter are the
 * newest, which live readers ask for right away, while they are still in Caffeine's admission
 * window; the main space keeps the events readers asked for most.
 *
 * <p>Threading: any thread. Two readers that miss at once may both encode the event (equal bytes;
 * one is kept); encoding under the cache's lock would make every other reader of the node wait.
 */
public final class EventCache {
  private static final long MAX_BYTES = 16L << 20;
  private static final int MAX_EVENT_BYTES = 64 << 10;

  private record Key(long streamId, long fromSeq, long toSeq) {}

  private final Cache<Key, byte[]> events =
      Caffeine.newBuilder()
          .maximumWeight(MAX_BYTES)
          .weigher((Key key, byte[] event) -> event.length)
          .build();

  /**
   * The event carrying the records {@code fromSeq} (inclusive) to {@code toSeq} (exclusive) of
   * stream {@code streamId}, encoded by {@code encode} unless cached. Callers must not change the
   * array.
   */
  public byte[] get(long streamId, long fromSeq, long toSeq, Supplier<byte[]> encode) {
    Key key = new Key(streamId, fromSeq, toSeq);
    byte[] cached = events.getIfPresent(key);
    if (cached != null) {
      return cached;
    }
    byte[] event = encode.get();
    if (event.length <= MAX_EVENT_BYTES) {
      byte[] raced = events.asMap().putIfAbsent(key, event);
      return raced != null ? raced : event;
    }
    return event;
  }
}
