package io.picomq.frontend.live;

import io.picomq.stream.ReadOutcome;

/**
 * What one protocol says on a Server-Sent Events response, and how it reads on; {@link SseLoop}
 * decides when. An instance serves one response, so it may keep that response's state (what it last
 * told the client) without a lock: the loop calls it one step at a time.
 */
public interface SseWire {

  /**
   * Reads on from {@code seq}; anything but a batch ends the response (the reconnect learns why).
   */
  ReadOutcome read(long seq);

  /** The events that deliver {@code batch} (records, control events), empty for nothing to say. */
  byte[] events(ReadOutcome.Batch batch);

  /** What an idle response sends every long-poll timeout to keep intermediaries from closing it. */
  byte[] keepAlive(long nextSeq);
}
