package io.picomq.s3stream.api;

/** How an append ended. Callers switch over it exhaustively. */
public sealed interface AppendOutcome {

  /** Durable: the records hold offsets {@code [baseOffset, nextOffset)}. */
  record Appended(long baseOffset, long nextOffset) implements AppendOutcome {}

  /** A newer epoch of the stream exists: this writer must stop. */
  record Fenced(long epoch) implements AppendOutcome {}

  /** The WAL holds too many unconfirmed bytes; retry after a pause. */
  record OverCapacity(long unconfirmedBytes, long limitBytes) implements AppendOutcome {}

  /** The stream was closed on this node. */
  record Closed() implements AppendOutcome {}
}
