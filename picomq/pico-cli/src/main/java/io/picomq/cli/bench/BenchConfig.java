package io.picomq.cli.bench;

import java.time.Duration;

/**
 * One run's workload, validated.
 *
 * @param streams how many temporary streams; writer {@code w} appends to stream {@code w % streams}
 * @param recordSize bytes per record body (at least {@link BenchRecord#HEADER_BYTES})
 * @param duration how long the measured part lasts (after the warm-up)
 * @param warmup how long the load runs before anything counts toward the report
 * @param writers appends in flight (each writer keeps one outstanding); in producer mode, threads
 *     sending one record at a time
 * @param recordsPerAppend records in each append; in producer mode, how many records each writer
 *     may have unacknowledged
 * @param rate target records per second of all writers together; 0 means as fast as possible
 * @param connections client instances (connection pools) the writers are spread over
 * @param interval how often a progress line is printed; zero prints none
 * @param writeOnly no reader: only acknowledgement is measured
 * @param producer send through the SDK's idempotent producer session instead of plain appends
 * @param drainTimeout how long the readers may go without progress while catching up at the end
 */
record BenchConfig(
    int streams,
    int recordSize,
    Duration duration,
    Duration warmup,
    int writers,
    int recordsPerAppend,
    double rate,
    int connections,
    Duration interval,
    boolean writeOnly,
    boolean producer,
    Duration drainTimeout) {

  BenchConfig {
    positive("--streams", streams);
    positive("--writers", writers);
    positive("--records-per-append", recordsPerAppend);
    positive("--connections", connections);
    if (recordSize < BenchRecord.HEADER_BYTES) {
      throw new IllegalArgumentException(
          "--record-size must be at least "
              + BenchRecord.HEADER_BYTES
              + " bytes (the timestamp header), not "
              + recordSize);
    }
    if (duration.isZero() || duration.isNegative()) {
      throw new IllegalArgumentException("--duration must be positive");
    }
    if (warmup.isNegative() || interval.isNegative() || drainTimeout.isNegative()) {
      throw new IllegalArgumentException("durations must not be negative");
    }
    if (!(rate >= 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("--rate must be >= 0 (0 = unlimited), not " + rate);
    }
  }

  private static void positive(String flag, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(flag + " must be at least 1, not " + value);
    }
  }

  /** Records each writer sends per scheduled unit: an append, or one producer record. */
  int unitRecords() {
    return producer ? 1 : recordsPerAppend;
  }
}
