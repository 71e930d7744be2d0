package io.picomq.stream;

/** What {@link StreamService#create} did. */
public sealed interface CreateOutcome {

  /** A new stream exists, holding the initial records. */
  record Created(StreamDescription stream) implements CreateOutcome {}

  /** The stream already existed with the same configuration; nothing was written. */
  record Exists(StreamDescription stream) implements CreateOutcome {}

  /**
   * The stream already exists with a different configuration (or a fork's content type differs).
   */
  record Conflict(String reason) implements CreateOutcome {}

  /**
   * The name belongs to a soft-deleted stream whose records forks still read; it becomes free when
   * the last of those forks is gone.
   */
  record NameRetained() implements CreateOutcome {}

  /** The fork's source does not exist (or has expired). */
  record SourceNotFound() implements CreateOutcome {}

  /** The fork's source is soft-deleted: it cannot get new forks. */
  record SourceGone() implements CreateOutcome {}

  /** The fork point lies outside the source (see {@link ForkPoint} for the rule). */
  record InvalidForkPoint(String reason) implements CreateOutcome {}
}
