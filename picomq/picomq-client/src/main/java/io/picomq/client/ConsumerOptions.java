package io.picomq.client;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Where a {@link Consumer} starts and how it follows the stream. Immutable: e.g. {@code
 * ConsumerOptions.fromSeq(0).live(LiveMode.SSE)}.
 *
 * @param fromSeq the first seq to deliver; empty: from the tail at the consumer's first read
 * @param live how to wait at the tail
 * @param maxRecords at most this many records per read (0: the server's default)
 * @param retryBackoffBase the first pause after a failed read; doubled after each further failure
 * @param retryBackoffMax the longest pause between reads that fail
 */
public record ConsumerOptions(
    OptionalLong fromSeq,
    LiveMode live,
    int maxRecords,
    Duration retryBackoffBase,
    Duration retryBackoffMax) {

  static final Duration DEFAULT_BACKOFF_BASE = Duration.ofMillis(50);
  static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(2);

  public ConsumerOptions {
    Objects.requireNonNull(fromSeq, "fromSeq");
    fromSeq.ifPresent(s -> OptionChecks.notNegative(s, "fromSeq"));
    Objects.requireNonNull(live, "live");
    OptionChecks.notNegative(maxRecords, "maxRecords");
    OptionChecks.positive(retryBackoffBase, "retryBackoffBase");
    OptionChecks.positive(retryBackoffMax, "retryBackoffMax");
  }

  /** Deliver from {@code seq} on, long-polling at the tail. */
  public static ConsumerOptions fromSeq(long seq) {
    return new ConsumerOptions(
        OptionalLong.of(seq), LiveMode.LONG_POLL, 0, DEFAULT_BACKOFF_BASE, DEFAULT_BACKOFF_MAX);
  }

  /** Deliver only records appended after the consumer's first read, long-polling at the tail. */
  public static ConsumerOptions fromTail() {
    return new ConsumerOptions(
        OptionalLong.empty(), LiveMode.LONG_POLL, 0, DEFAULT_BACKOFF_BASE, DEFAULT_BACKOFF_MAX);
  }

  /** A copy that waits at the tail this way. */
  public ConsumerOptions live(LiveMode live) {
    return new ConsumerOptions(fromSeq, live, maxRecords, retryBackoffBase, retryBackoffMax);
  }

  /** A copy reading at most {@code maxRecords} per request (0: the server's default). */
  public ConsumerOptions maxRecords(int maxRecords) {
    return new ConsumerOptions(fromSeq, live, maxRecords, retryBackoffBase, retryBackoffMax);
  }

  /** A copy with this retry backoff. */
  public ConsumerOptions retryBackoff(Duration base, Duration max) {
    return new ConsumerOptions(fromSeq, live, maxRecords, base, max);
  }
}
