package io.picomq.cli.bench;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Locale;

/**
 * The final report: what ran, how fast, how long acknowledgement and delivery took. Printed as text
 * or, with {@code --json}, as JSON with these field names.
 *
 * @param elapsedSeconds the measured window: from the end of the warm-up until the last writer
 *     finished
 * @param reads absent in write-only runs
 * @param problems what makes the run suspect (failed appends, records the reader never saw); empty
 *     when all went well
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record BenchReport(
    Settings settings, double elapsedSeconds, Writes writes, Reads reads, List<String> problems) {

  BenchReport {
    problems = List.copyOf(problems);
  }

  /** What the run was asked to do. */
  record Settings(
      String endpoint,
      String protocol,
      boolean http2,
      int streams,
      int recordSize,
      int writers,
      int recordsPerAppend,
      double rate,
      int connections,
      boolean producer,
      boolean writeOnly,
      double durationSeconds,
      double warmupSeconds) {

    static Settings of(BenchConfig config, String endpoint, String protocol, boolean http2) {
      return new Settings(
          endpoint,
          protocol,
          http2,
          config.streams(),
          config.recordSize(),
          config.writers(),
          config.recordsPerAppend(),
          config.rate(),
          config.connections(),
          config.producer(),
          config.writeOnly(),
          config.duration().toNanos() / 1e9,
          config.warmup().toNanos() / 1e9);
    }
  }

  /**
   * @param records every record acknowledged, warm-up included (what the reader should see)
   * @param measuredRecords those due after the warm-up: the throughput and percentiles are theirs
   * @param errors failed appends (or producer records)
   * @param retries requests the SDK sent again by itself (after a 503 with Retry-After, or a
   *     producer session's resends); not counted as errors
   * @param ackLatencyMs from the intended send time to the durable acknowledgement
   */
  record Writes(
      long records,
      long measuredRecords,
      long errors,
      long retries,
      double recordsPerSecond,
      double mbPerSecond,
      LatencySummary ackLatencyMs) {}

  /**
   * @param records every record the readers received, warm-up included
   * @param endToEndLatencyMs from the intended send time to delivery to the reader
   */
  record Reads(long records, LatencySummary endToEndLatencyMs) {}

  /** The report for a person: a few aligned lines. */
  String text() {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "pico bench: %s protocol%s at %s; %d stream(s), %d writer(s), %d record(s)/append of %d B%s%s%s%n",
            settings.protocol(),
            settings.http2() ? " (HTTP/2)" : "",
            settings.endpoint(),
            settings.streams(),
            settings.writers(),
            settings.recordsPerAppend(),
            settings.recordSize(),
            settings.rate() > 0
                ? String.format(Locale.ROOT, ", target %.0f rec/s", settings.rate())
                : "",
            settings.producer() ? ", producer sessions" : "",
            settings.connections() > 1 ? ", " + settings.connections() + " connections" : ""));
    out.append(
        String.format(
            Locale.ROOT,
            "measured %.1f s after %.1f s warm-up%n",
            elapsedSeconds,
            settings.warmupSeconds()));
    out.append(
        String.format(
            Locale.ROOT,
            "throughput  %.0f records/s  %.2f MB/s  (%d records acknowledged, %d errors, %d"
                + " retries)%n",
            writes.recordsPerSecond(),
            writes.mbPerSecond(),
            writes.records(),
            writes.errors(),
            writes.retries()));
    out.append(latencyLine("ack", writes.ackLatencyMs()));
    if (reads != null) {
      out.append(latencyLine("e2e", reads.endToEndLatencyMs()));
      out.append(String.format(Locale.ROOT, "reader      %d records received%n", reads.records()));
    }
    for (String problem : problems) {
      out.append("problem: ").append(problem).append(System.lineSeparator());
    }
    return out.toString();
  }

  private static String latencyLine(String name, LatencySummary latency) {
    return String.format(
        Locale.ROOT,
        "%-4s ms    p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f  (%d samples)%n",
        name,
        latency.p50(),
        latency.p90(),
        latency.p99(),
        latency.p999(),
        latency.max(),
        latency.count());
  }
}
