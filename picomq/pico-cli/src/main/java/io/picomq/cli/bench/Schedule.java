package io.picomq.cli.bench;

/**
 * When one writer means to send each of its units (an append, or one record in producer mode).
 *
 * <p>With a target rate the writers share the load evenly: unit {@code k} of writer {@code w} of
 * {@code W} is due at {@code start + (k * W + w) * unitRecords / rate} seconds, computed from
 * {@code k} each time so rounding never drifts. A writer that falls behind sends at once, and its
 * latency is still counted from the due time: the queueing a slow server causes shows in the
 * percentiles instead of being silently absorbed (coordinated omission). Without a rate every unit
 * is due when the writer is ready to send it.
 *
 * @param startNanos the {@link System#nanoTime} the schedule starts at
 * @param recordsPerSecond the target rate of all writers together; 0 means unlimited
 */
record Schedule(
    long startNanos, double recordsPerSecond, int writers, int writer, int unitRecords) {

  Schedule {
    if (recordsPerSecond < 0 || Double.isNaN(recordsPerSecond)) {
      throw new IllegalArgumentException("rate must be >= 0: " + recordsPerSecond);
    }
    if (writers < 1 || writer < 0 || writer >= writers || unitRecords < 1) {
      throw new IllegalArgumentException(
          "bad schedule: writer " + writer + " of " + writers + ", unit " + unitRecords);
    }
  }

  /** Whether units are paced by a target rate. */
  boolean paced() {
    return recordsPerSecond > 0;
  }

  /**
   * The intended send time of unit {@code k} (0-based), or {@code nowNanos} when not paced.
   *
   * @param nowNanos the current time, used only by an unpaced schedule
   */
  long dueNanos(long k, long nowNanos) {
    if (!paced()) {
      return nowNanos;
    }
    double slot = (double) k * writers + writer;
    return startNanos + Math.round(slot * unitRecords * 1e9 / recordsPerSecond);
  }
}
