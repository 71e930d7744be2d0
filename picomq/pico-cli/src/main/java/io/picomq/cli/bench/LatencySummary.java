package io.picomq.cli.bench;

import org.HdrHistogram.Histogram;

/**
 * Percentiles of one latency histogram, in milliseconds.
 *
 * @param count how many records the percentiles are over
 */
record LatencySummary(
    long count, double p50, double p90, double p99, double p999, double max, double mean) {

  /** Summarises a histogram of microseconds. */
  static LatencySummary of(Histogram micros) {
    if (micros.getTotalCount() == 0) {
      return new LatencySummary(0, 0, 0, 0, 0, 0, 0);
    }
    return new LatencySummary(
        micros.getTotalCount(),
        ms(micros.getValueAtPercentile(50)),
        ms(micros.getValueAtPercentile(90)),
        ms(micros.getValueAtPercentile(99)),
        ms(micros.getValueAtPercentile(99.9)),
        ms(micros.getMaxValue()),
        Math.round(micros.getMean()) / 1000.0);
  }

  private static double ms(long micros) {
    return micros / 1000.0;
  }
}
