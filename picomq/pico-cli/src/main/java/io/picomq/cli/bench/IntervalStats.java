package io.picomq.cli.bench;

import java.util.Locale;

/**
 * What happened during one progress interval.
 *
 * @param phase {@code warmup}, {@code run} or {@code drain} (writers done, reader catching up)
 * @param atSeconds seconds since the run started, at the end of the interval
 * @param seconds the interval's length
 * @param records records acknowledged in the interval
 * @param bytes their body bytes
 * @param errors appends that failed in the interval
 * @param delivered records the readers received in the interval
 */
record IntervalStats(
    String phase,
    double atSeconds,
    double seconds,
    long records,
    long bytes,
    long errors,
    long delivered,
    LatencySummary ack,
    LatencySummary endToEnd) {

  /**
   * One progress line: rates and p50/p99 of the interval alone, so that a stall shows as a dropping
   * rate and a growing p99 while it happens, not only in the final report.
   */
  String line(boolean withEndToEnd) {
    double perSecond = seconds > 0 ? records / seconds : 0;
    double megabytes = seconds > 0 ? bytes / seconds / 1e6 : 0;
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%7.1fs %-6s %10.0f rec/s %8.2f MB/s  ack p50 %s p99 %s",
                atSeconds,
                phase,
                perSecond,
                megabytes,
                ms(ack.p50()),
                ms(ack.p99())));
    if (withEndToEnd) {
      line.append(
          String.format(
              Locale.ROOT,
              "  e2e p50 %s p99 %s (%d read)",
              ms(endToEnd.p50()),
              ms(endToEnd.p99()),
              delivered));
    }
    if (errors > 0) {
      line.append(String.format(Locale.ROOT, "  %d errors", errors));
    }
    return line.toString();
  }

  private static String ms(double value) {
    return String.format(Locale.ROOT, "%7.2fms", value);
  }
}
