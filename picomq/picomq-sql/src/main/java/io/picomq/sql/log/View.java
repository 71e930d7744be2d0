package io.picomq.sql.log;

/**
 * An immutable view of the replicated state: the state after applying every row up to and including
 * {@code appliedIndex}. Index 0 is the initial state, before the first row.
 */
public record View<S>(long appliedIndex, S state) {
  public View {
    if (appliedIndex < 0) {
      throw new IllegalArgumentException("appliedIndex " + appliedIndex + " is negative");
    }
  }
}
