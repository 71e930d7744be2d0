package io.picomq.meta.state;

/** Whether some node process currently holds a stream open for appends. */
public enum StreamStatus {
  /** Nobody appends; the last owner flushed and closed it, or it was never opened. */
  CLOSED,
  /** One node process (the stream's node at the recorded node epoch) appends at the epoch. */
  OPEN
}
