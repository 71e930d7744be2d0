package io.picomq.stream;

/** What {@link StreamService#delete} did. */
public sealed interface DeleteOutcome {

  /**
   * The stream is deleted.
   *
   * @param retainedForForks true when forks still read its records, so it was soft-deleted
   */
  record Deleted(boolean retainedForForks) implements DeleteOutcome {}

  record NotFound() implements DeleteOutcome {}

  /** It was already soft-deleted. */
  record Gone() implements DeleteOutcome {}
}
