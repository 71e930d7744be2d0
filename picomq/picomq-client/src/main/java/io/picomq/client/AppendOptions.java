package io.picomq.client;

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
 */
public record AppendOptions(
    OptionalLong matchSeq, boolean close, Optional<ProducerStamp> producer) {

  public AppendOptions {
    Objects.requireNonNull(matchSeq, "matchSeq");
    Objects.requireNonNull(producer, "producer");
  }

  /** A plain append. */
  public static AppendOptions defaults() {
    return new AppendOptions(OptionalLong.empty(), false, Optional.empty());
  }

  /** A copy that appends only if the tail is at {@code seq}. */
  public AppendOptions matchSeq(long seq) {
    return new AppendOptions(
        OptionalLong.of(Settings.notNegative(seq, "matchSeq")), close, producer);
  }

  /** A copy that seals the stream after the append (or not). */
  public AppendOptions close(boolean close) {
    return new AppendOptions(matchSeq, close, producer);
  }

  /** A copy sent as an idempotent producer's append. */
  public AppendOptions producer(ProducerId id, long epoch, long seq) {
    return new AppendOptions(matchSeq, close, Optional.of(new ProducerStamp(id, epoch, seq)));
  }

  /** A copy sent as an idempotent producer's append. */
  public AppendOptions producer(ProducerStamp stamp) {
    return new AppendOptions(matchSeq, close, Optional.of(stamp));
  }
}
