package io.picomq.stream;

/** What {@link StreamService#trim} did. */
public sealed interface TrimOutcome {

  /** Records below {@code startSeq} are gone (trimming never moves the start backwards). */
  record Trimmed(long startSeq) implements TrimOutcome {}

  /** The requested seq lies past the tail {@code nextSeq}. */
  record BeyondTail(long nextSeq) implements TrimOutcome {}

  record NotFound() implements TrimOutcome {}

  record Gone() implements TrimOutcome {}
}
