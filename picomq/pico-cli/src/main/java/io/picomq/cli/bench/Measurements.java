package io.picomq.cli.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Latency histograms and counters of one run. Writers and readers record from any thread
 * (HdrHistogram {@link Recorder}s and {@link LongAdder}s are wait-free for them); one ticker thread
 * takes the interval snapshots with {@link #interval}, and the totals are read once every writer
 * and reader has stopped.
 *
 * <p>Everything counts toward the progress lines. Only records whose intended send time is at or
 * after the end of the warm-up count toward the final percentiles and throughput. Latencies are
 * kept in microseconds and weighted per record.
 */
final class Measurements {
  private final long measureFromNanos;

  private final Recorder ackInterval = new Recorder(3);
  private final Recorder e2eInterval = new Recorder(3);
  private final Recorder ackMeasured = new Recorder(3);
  private final Recorder e2eMeasured = new Recorder(3);

  private final LongAdder intervalRecords = new LongAdder();
  private final LongAdder intervalBytes = new LongAdder();
  private final LongAdder intervalErrors = new LongAdder();
  private final LongAdder intervalDelivered = new LongAdder();

  private final LongAdder acked = new LongAdder();
  private final LongAdder ackedMeasured = new LongAdder();
  private final LongAdder ackedMeasuredBytes = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder delivered = new LongAdder();

  /** Owned by the ticker thread until the run ends. */
  private final Histogram ackTotal = new Histogram(3);

  private final Histogram e2eTotal = new Histogram(3);

  /**
   * @param measureFromNanos the end of the warm-up ({@link System#nanoTime})
   */
  Measurements(long measureFromNanos) {
    this.measureFromNanos = measureFromNanos;
  }

  /** {@code records} records of {@code bytes} body bytes in all, due at dueNanos, are durable. */
  void acknowledged(long dueNanos, long ackNanos, int records, long bytes) {
    long micros = micros(ackNanos - dueNanos);
    ackInterval.recordValueWithCount(micros, records);
    intervalRecords.add(records);
    intervalBytes.add(bytes);
    acked.add(records);
    if (dueNanos >= measureFromNanos) {
      ackMeasured.recordValueWithCount(micros, records);
      ackedMeasured.add(records);
      ackedMeasuredBytes.add(bytes);
    }
  }

  /** An append (or a producer record) failed. */
  void failed(int appends) {
    intervalErrors.add(appends);
    failed.add(appends);
  }

  /** The reader received a record that was due at dueNanos. */
  void delivered(long dueNanos, long nowNanos) {
    long micros = micros(nowNanos - dueNanos);
    e2eInterval.recordValue(micros);
    intervalDelivered.increment();
    delivered.increment();
    if (dueNanos >= measureFromNanos) {
      e2eMeasured.recordValue(micros);
    }
  }

  /** Takes what was recorded since the last call; one thread (the ticker) calls it. */
  IntervalStats interval(String phase, double atSeconds, double seconds) {
    Histogram ack = ackInterval.getIntervalHistogram();
    Histogram e2e = e2eInterval.getIntervalHistogram();
    drainTotals();
    return new IntervalStats(
        phase,
        atSeconds,
        seconds,
        intervalRecords.sumThenReset(),
        intervalBytes.sumThenReset(),
        intervalErrors.sumThenReset(),
        intervalDelivered.sumThenReset(),
        LatencySummary.of(ack),
        LatencySummary.of(e2e));
  }

  private void drainTotals() {
    ackTotal.add(ackMeasured.getIntervalHistogram());
    e2eTotal.add(e2eMeasured.getIntervalHistogram());
  }

  /** The measured acknowledgement latencies; call once every writer has stopped. */
  LatencySummary ackTotal() {
    drainTotals();
    return LatencySummary.of(ackTotal);
  }

  /** The measured delivery latencies; call once every reader has stopped. */
  LatencySummary endToEndTotal() {
    drainTotals();
    return LatencySummary.of(e2eTotal);
  }

  /** Records acknowledged, warm-up included. */
  long acked() {
    return acked.sum();
  }

  /** Records acknowledged that were due after the warm-up. */
  long ackedMeasured() {
    return ackedMeasured.sum();
  }

  /** Their body bytes. */
  long ackedMeasuredBytes() {
    return ackedMeasuredBytes.sum();
  }

  /** Appends (or producer records) that failed. */
  long failed() {
    return failed.sum();
  }

  /** Records the readers received, warm-up included. */
  long delivered() {
    return delivered.sum();
  }

  private static long micros(long nanos) {
    // A clock read on another core may be a hair behind: never record a negative latency.
    return Math.max(0, TimeUnit.NANOSECONDS.toMicros(nanos));
  }
}
