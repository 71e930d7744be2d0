package io.picomq.meta.apply;

/** The result of applying one command; callers switch over it exhaustively. */
public sealed interface Result {

  /** The command changed the state as described. */
  record Ok(Outcome outcome) implements Result {}

  /**
   * The command's work was already done (a retry, or a duplicate proposal); the state is unchanged
   * and {@code outcome} describes what is there.
   */
  record Redundant(Outcome outcome) implements Result {}

  /** The command does not apply to the state; the state is unchanged. */
  record Rejected(RejectReason reason, String message) implements Result {}
}
