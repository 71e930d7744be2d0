package io.picomq.s3stream.core.stream;

/** Where an {@link OpenStream} is in its life on this node. */
enum StreamState {
  /** Takes appends. */
  OPEN,
  /** close() began: no appends; what was appended is being committed. */
  CLOSING,
  /** Closed in the metadata plane (or given up after a failure). */
  CLOSED
}
