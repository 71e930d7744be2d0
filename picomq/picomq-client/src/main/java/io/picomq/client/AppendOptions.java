package io.picomq.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Conditions and extras of one {@link PicoClient#append}. Immutable: each {@code with}-style method
 * answers a copy, e.g. {@code AppendOptions.defaults().matchSeq(10).close(true)}.
 *
 * @param matchSeq append only if the stream's tail is at this seq ({@link SeqMismatchException}
 *     otherwise)
 * @param close seal the stream after this append
 * @param producer the idempotent-producer stamp, if any
 * @param retryUnavailable how long to keep resending the append while the server answers {@code
 *     503}/{@code 507}; empty: the default, which is not at all for a plain append and the client's
 *     {@link PicoClient.Builder#retryUnavailable} budget for one with a producer stamp
 */
public record AppendOptions(
    OptionalLong matchSeq,
    boolean close,
    Optional<ProducerStamp> producer,
    Optional<Duration> retryUnavailable) {

  public AppendOptions {
    Objects.requireNonNull(matchSeq, "matchSeq");
    Objects.requireNonNull(producer, "producer");
    Objects.requireNonNull(retryUnavailable, "retryUnavailable");
    retryUnavailable.ifPresent(d -> OptionChecks.notNegative(d, "retryUnavailable"));
  }

  /** Options without a retry setting (the default applies). */
  public AppendOptions(OptionalLong matchSeq, boolean close, Optional<ProducerStamp> producer) {
    this(matchSeq, close, producer, Optional.empty());
  }

  /** A plain append. */
  public static AppendOptions defaults() {
    return new AppendOptions(OptionalLong.empty(), false, Optional.empty(), Optional.empty());
  }

  /** A copy that appends only if the tail is at {@code seq}. */
  public AppendOptions matchSeq(long seq) {
    return new AppendOptions(
        OptionalLong.of(OptionChecks.notNegative(seq, "matchSeq")),
        close,
        producer,
        retryUnavailable);
  }

  /** A copy that seals the stream after the append (or not). */
  public AppendOptions close(boolean close) {
    return new AppendOptions(matchSeq, close, producer, retryUnavailable);
  }

  /** A copy sent as an idempotent producer's append. */
  public AppendOptions producer(ProducerId id, long epoch, long seq) {
    return producer(new ProducerStamp(id, epoch, seq));
  }

  /** A copy sent as an idempotent producer's append. */
  public AppendOptions producer(ProducerStamp stamp) {
    return new AppendOptions(matchSeq, close, Optional.of(stamp), retryUnavailable);
  }

  /**
   * A copy that resends the append while the server answers {@code 503}/{@code 507}, for up to
   * {@code maxWait} (pausing as {@link PicoClient.Builder#retryUnavailable} describes); {@link
   * Duration#ZERO} never resends.
   *
   * <p>Off by default for a plain append, because it can write records twice: a server that answers
   * 503 after its own time limit may still complete the append later (its body says so), and the
   * resend then appends the same records again. Ask for it when duplicates are acceptable or
   * detectable; for exactly-once, use a producer stamp or a {@link ProducerSession}, whose resends
   * the server recognises.
   */
  public AppendOptions retryUnavailable(Duration maxWait) {
    return new AppendOptions(
        matchSeq,
        close,
        producer,
        Optional.of(OptionChecks.notNegative(maxWait, "retryUnavailable")));
  }
}
