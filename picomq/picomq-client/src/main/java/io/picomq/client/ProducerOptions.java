package io.picomq.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link ProducerSession} batches, pipelines and retries. Build one with {@link #builder()},
 * or start from {@link #defaults()}.
 *
 * @param producerId the producer id; empty: a random UUID per session
 * @param epoch the producer epoch (default 0); a restarted producer that reuses its id takes a
 *     higher one
 * @param linger how long a batch waits for more records before it is sent (default 5 ms)
 * @param maxBatchRecords at most this many records per append (default 1000)
 * @param maxBatchBytes at most about this many body bytes per append (default 1 MiB)
 * @param maxInFlightBytes at most this many body bytes sent but not yet durable, plus queued
 *     (default 16 MiB); {@link ProducerSession#send} blocks beyond it
 * @param maxInFlightRequests at most this many appends on the wire at once (default 8)
 * @param maxBlock how long {@link ProducerSession#send} waits for room (default 60 s)
 * @param retryBackoffBase the first pause before resending a failed append (default 50 ms)
 * @param retryBackoffMax the longest pause between resends (default 5 s)
 * @param jitter the fraction of each pause drawn at random, 0 to 1 (default 0.2)
 * @param deliveryTimeout how long a batch may keep failing before the session gives up (default 2
 *     min)
 */
public record ProducerOptions(
    Optional<String> producerId,
    long epoch,
    Duration linger,
    int maxBatchRecords,
    long maxBatchBytes,
    long maxInFlightBytes,
    int maxInFlightRequests,
    Duration maxBlock,
    Duration retryBackoffBase,
    Duration retryBackoffMax,
    double jitter,
    Duration deliveryTimeout) {

  public ProducerOptions {
    Objects.requireNonNull(producerId, "producerId");
    producerId.ifPresent(ProducerId::of);
    OptionChecks.notNegative(epoch, "epoch");
    OptionChecks.notNegative(linger, "linger");
    OptionChecks.positive(maxBatchRecords, "maxBatchRecords");
    OptionChecks.positive(maxBatchBytes, "maxBatchBytes");
    OptionChecks.positive(maxInFlightBytes, "maxInFlightBytes");
    OptionChecks.positive(maxInFlightRequests, "maxInFlightRequests");
    OptionChecks.notNegative(maxBlock, "maxBlock");
    OptionChecks.positive(retryBackoffBase, "retryBackoffBase");
    OptionChecks.positive(retryBackoffMax, "retryBackoffMax");
    if (!(jitter >= 0 && jitter <= 1)) {
      throw new IllegalArgumentException("jitter must be between 0 and 1: " + jitter);
    }
    OptionChecks.positive(deliveryTimeout, "deliveryTimeout");
  }

  /** Every setting at its default. */
  public static ProducerOptions defaults() {
    return builder().build();
  }

  /** A builder with every setting at its default. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these settings; each may be set once more. */
  public Builder newBuilder() {
    return new Builder(this);
  }

  /**
   * Builds {@link ProducerOptions}. Each setting may be made once: setting one twice is a mistake
   * and fails instead of the last one silently winning.
   */
  public static final class Builder {
    private final ProducerOptions base;
    private String producerId;
    private Long epoch;
    private Duration linger;
    private Integer maxBatchRecords;
    private Long maxBatchBytes;
    private Long maxInFlightBytes;
    private Integer maxInFlightRequests;
    private Duration maxBlock;
    private Duration retryBackoffBase;
    private Duration retryBackoffMax;
    private Double jitter;
    private Duration deliveryTimeout;

    private Builder() {
      this(
          new ProducerOptions(
              Optional.empty(),
              0,
              Duration.ofMillis(5),
              1000,
              1L << 20,
              16L << 20,
              8,
              Duration.ofSeconds(60),
              Duration.ofMillis(50),
              Duration.ofSeconds(5),
              0.2,
              Duration.ofMinutes(2)));
    }

    private Builder(ProducerOptions base) {
      this.base = base;
    }

    /** The producer id (default: a random UUID per session). */
    public Builder producerId(String producerId) {
      this.producerId = OptionChecks.once(this.producerId, producerId, "producerId");
      return this;
    }

    /** The producer epoch (default 0); a restarted producer reusing its id takes a higher one. */
    public Builder epoch(long epoch) {
      this.epoch = OptionChecks.once(this.epoch, epoch, "epoch");
      return this;
    }

    /** How long a batch waits for more records while a request slot is free (default 5 ms). */
    public Builder linger(Duration linger) {
      this.linger = OptionChecks.once(this.linger, linger, "linger");
      return this;
    }

    /** At most this many records per append (default 1000). */
    public Builder maxBatchRecords(int maxBatchRecords) {
      this.maxBatchRecords =
          OptionChecks.once(this.maxBatchRecords, maxBatchRecords, "maxBatchRecords");
      return this;
    }

    /** At most about this many body bytes per append (default 1 MiB). */
    public Builder maxBatchBytes(long maxBatchBytes) {
      this.maxBatchBytes = OptionChecks.once(this.maxBatchBytes, maxBatchBytes, "maxBatchBytes");
      return this;
    }

    /**
     * At most this many body bytes sent but not yet acknowledged, queued ones included (default 16
     * MiB).
     */
    public Builder maxInFlightBytes(long maxInFlightBytes) {
      this.maxInFlightBytes =
          OptionChecks.once(this.maxInFlightBytes, maxInFlightBytes, "maxInFlightBytes");
      return this;
    }

    /** At most this many appends on the wire at once (default 8). */
    public Builder maxInFlightRequests(int maxInFlightRequests) {
      this.maxInFlightRequests =
          OptionChecks.once(this.maxInFlightRequests, maxInFlightRequests, "maxInFlightRequests");
      return this;
    }

    /** How long {@link ProducerSession#send} waits for room (default 60 s). */
    public Builder maxBlock(Duration maxBlock) {
      this.maxBlock = OptionChecks.once(this.maxBlock, maxBlock, "maxBlock");
      return this;
    }

    /** The first and the longest pause between resends of a failed append. */
    public Builder retryBackoff(Duration base, Duration max) {
      this.retryBackoffBase = OptionChecks.once(this.retryBackoffBase, base, "retryBackoffBase");
      this.retryBackoffMax = OptionChecks.once(this.retryBackoffMax, max, "retryBackoffMax");
      return this;
    }

    /** The fraction of each retry pause drawn at random, 0 to 1 (default 0.2). */
    public Builder jitter(double jitter) {
      this.jitter = OptionChecks.once(this.jitter, jitter, "jitter");
      return this;
    }

    /** How long a batch may keep failing before the session gives up (default 2 min). */
    public Builder deliveryTimeout(Duration deliveryTimeout) {
      this.deliveryTimeout =
          OptionChecks.once(this.deliveryTimeout, deliveryTimeout, "deliveryTimeout");
      return this;
    }

    /** The options; each setting not made keeps its default. */
    public ProducerOptions build() {
      return new ProducerOptions(
          producerId == null ? base.producerId() : Optional.of(producerId),
          epoch == null ? base.epoch() : epoch,
          linger == null ? base.linger() : linger,
          maxBatchRecords == null ? base.maxBatchRecords() : maxBatchRecords,
          maxBatchBytes == null ? base.maxBatchBytes() : maxBatchBytes,
          maxInFlightBytes == null ? base.maxInFlightBytes() : maxInFlightBytes,
          maxInFlightRequests == null ? base.maxInFlightRequests() : maxInFlightRequests,
          maxBlock == null ? base.maxBlock() : maxBlock,
          retryBackoffBase == null ? base.retryBackoffBase() : retryBackoffBase,
          retryBackoffMax == null ? base.retryBackoffMax() : retryBackoffMax,
          jitter == null ? base.jitter() : jitter,
          deliveryTimeout == null ? base.deliveryTimeout() : deliveryTimeout);
    }
  }
}
