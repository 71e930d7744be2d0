package io.picomq.stream;

/** What {@link StreamService#head} found. */
public sealed interface HeadOutcome {

  record Found(StreamDescription stream) implements HeadOutcome {}

  record NotFound() implements HeadOutcome {}

  /** The stream is soft-deleted (see {@link StreamService#delete}). */
  record Gone() implements HeadOutcome {}
}
