package io.picomq.client;

/** How a {@link Consumer} waits for records once it has caught up with a stream's tail. */
public enum LiveMode {
  /** It does not wait: at the tail, {@link Consumer#poll} answers an empty batch at once. */
  NONE,
  /**
   * Long-polling: each read parks on the server until data arrives, the stream closes, or ~25 s.
   */
  LONG_POLL,
  /** Server-sent events: one response streams records as they become durable. */
  SSE
}
