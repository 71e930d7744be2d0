package io.picomq.meta.apply;

import io.picomq.meta.state.MetadataState;

/**
 * The state after one command and what the command did. For a {@code Redundant} or {@code Rejected}
 * result, {@code state} is the very instance the command was applied to.
 */
public record Applied(MetadataState state, Result result) {

  static Applied ok(MetadataState state, Outcome outcome) {
    return new Applied(state, new Result.Ok(outcome));
  }

  static Applied redundant(MetadataState unchanged, Outcome outcome) {
    return new Applied(unchanged, new Result.Redundant(outcome));
  }

  static Applied rejected(MetadataState unchanged, RejectReason reason, String message) {
    return new Applied(unchanged, new Result.Rejected(reason, message));
  }
}
