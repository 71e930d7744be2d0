package io.picomq.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Whole runs of the measurement core against a {@link MemoryTarget}. */
class BenchRunTest {
  private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
  private final PrintStream progress = new PrintStream(stderr, true, StandardCharsets.UTF_8);

  private static BenchConfig config(
      int streams, int writers, int perAppend, double rate, boolean writeOnly, boolean producer) {
    return new BenchConfig(
        streams,
        100,
        Duration.ofMillis(600),
        Duration.ofMillis(200),
        writers,
        perAppend,
        rate,
        2,
        Duration.ofMillis(200),
        writeOnly,
        producer,
        Duration.ofSeconds(10));
  }

  private BenchReport run(BenchConfig config, MemoryTarget target) throws InterruptedException {
    BenchRun run = new BenchRun(config, target, progress, System::nanoTime);
    return run.run(BenchReport.Settings.of(config, "memory:", "pico", false));
  }

  @Test
  void everyAcknowledgedRecordReachesTheReaderAndTheStreamsAreDeleted() throws Exception {
    MemoryTarget target = new MemoryTarget();
    BenchReport report = run(config(3, 6, 4, 0, false, false), target);

    assertThat(report.problems()).isEmpty();
    assertThat(report.writes().records()).isPositive();
    assertThat(report.writes().errors()).isZero();
    assertThat(report.reads().records()).isEqualTo(report.writes().records());
    assertThat(report.writes().measuredRecords()).isPositive();
    assertThat(report.writes().recordsPerSecond()).isPositive();
    assertThat(report.writes().mbPerSecond()).isPositive();
    ordered(report.writes().ackLatencyMs());
    ordered(report.reads().endToEndLatencyMs());
    assertThat(target.streams()).isEmpty();
    assertThat(target.deleted()).hasSize(3);
    assertThat(stderr.toString(StandardCharsets.UTF_8)).contains("rec/s").contains("e2e p50");
  }

  @Test
  void aByteStreamCutIntoChunksIsReadBackWhole() throws Exception {
    MemoryTarget target = new MemoryTarget(true, n -> {});
    BenchReport report = run(config(1, 4, 3, 0, false, false), target);
    assertThat(report.problems()).isEmpty();
    assertThat(report.reads().records()).isEqualTo(report.writes().records());
  }

  @Test
  void aTargetRateSendsExactlyTheRecordsDueInTheRun() throws Exception {
    // 500 records/s for 0.8 s (warm-up included) in appends of 2 by 5 writers: 400 records.
    MemoryTarget target = new MemoryTarget();
    BenchReport report = run(config(1, 5, 2, 500, false, false), target);
    assertThat(report.writes().records()).isEqualTo(400);
    assertThat(report.writes().measuredRecords()).isEqualTo(300);
    assertThat(report.reads().records()).isEqualTo(400);
  }

  @Test
  void aStallCountsForEveryRecordThatWasDueDuringIt() throws Exception {
    // One writer at 100 appends/s; append number 30 stalls 400 ms. Measured from the actual send
    // time only one append would look slow; from the intended time the ~40 appends due during
    // the stall all wait for it.
    MemoryTarget target = new MemoryTarget(false, n -> MemoryTarget.sleep(n == 30 ? 400 : 0));
    BenchConfig config =
        new BenchConfig(
            1,
            64,
            Duration.ofMillis(1200),
            Duration.ZERO,
            1,
            1,
            100,
            1,
            Duration.ZERO,
            true,
            false,
            Duration.ofSeconds(5));
    BenchReport report = run(config, target);
    LatencySummary ack = report.writes().ackLatencyMs();
    assertThat(ack.max()).isGreaterThanOrEqualTo(390);
    // at least a tenth of the 120 appends waited more than 100 ms
    assertThat(ack.p90()).isGreaterThan(100);
  }

  @Test
  void producerModeCountsEveryRecord() throws Exception {
    MemoryTarget target = new MemoryTarget();
    BenchReport report = run(config(2, 4, 8, 0, false, true), target);
    assertThat(report.problems()).isEmpty();
    assertThat(report.writes().records()).isPositive();
    assertThat(report.reads().records()).isEqualTo(report.writes().records());
  }

  @Test
  void aBrokenProducerSessionStopsItsWritersInsteadOfSpinning() throws Exception {
    MemoryTarget target =
        new MemoryTarget(
            false,
            n -> {
              if (n == 20) {
                throw new IllegalStateException("rejected");
              }
            });
    BenchReport report = run(config(1, 2, 4, 0, false, true), target);
    assertThat(report.writes().errors()).isPositive().isLessThan(50);
    assertThat(report.problems()).anyMatch(p -> p.contains("rejected"));
  }

  @Test
  void writeOnlyRunsHaveNoReads() throws Exception {
    BenchReport report = run(config(1, 2, 1, 0, true, false), new MemoryTarget());
    assertThat(report.reads()).isNull();
    assertThat(report.writes().records()).isPositive();
    assertThat(report.text()).contains("throughput").doesNotContain("e2e");
  }

  @Test
  void failedAppendsAreReportedAsProblems() throws Exception {
    MemoryTarget target =
        new MemoryTarget(
            false,
            n -> {
              if (n % 2 == 1) {
                throw new IllegalStateException("boom " + n);
              }
            });
    BenchReport report = run(config(1, 2, 1, 200, false, false), target);
    assertThat(report.writes().errors()).isPositive();
    assertThat(report.problems()).anyMatch(p -> p.contains("appends failed") && p.contains("boom"));
    // what was acknowledged was still all read
    assertThat(report.reads().records()).isEqualTo(report.writes().records());
  }

  @Test
  void anAbortedRunStopsPromptlyAndStillDeletesItsStreams() throws Exception {
    MemoryTarget target = new MemoryTarget();
    BenchConfig config =
        new BenchConfig(
            2,
            64,
            Duration.ofMinutes(10),
            Duration.ZERO,
            4,
            1,
            50,
            1,
            Duration.ZERO,
            false,
            false,
            Duration.ofSeconds(10));
    BenchRun run = new BenchRun(config, target, progress, System::nanoTime);
    java.util.concurrent.CompletableFuture<BenchReport> report =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return run.run(BenchReport.Settings.of(config, "memory:", "pico", false));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    // Abort once writes have landed: the append that landed a record is acknowledged before its
    // writer looks at the abort flag again, so the report must count it.
    await("both streams created and a record written")
        .atMost(Duration.ofSeconds(30))
        .until(() -> target.streams().size() == 2 && target.records() > 0);
    run.abort();
    assertThat(run.awaitFinished(Duration.ofSeconds(30))).isTrue();
    assertThat(report.get().writes().records()).isPositive();
    assertThat(target.streams()).isEmpty();
    assertThat(target.deleted()).hasSize(2);
  }

  @Test
  void retriesAreCountedInTheReportButAreNoProblem() throws Exception {
    MemoryTarget target = new MemoryTarget(false, n -> {});
    target.retried(3);
    BenchReport report = run(config(1, 1, 1, 0, false, false), target);

    assertThat(report.writes().retries()).isEqualTo(3);
    assertThat(report.problems()).isEmpty();
    assertThat(report.text()).contains("0 errors, 3 retries");
    assertThat(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(report))
        .contains("\"retries\":3");
  }

  private static void ordered(LatencySummary latency) {
    assertThat(latency.count()).isPositive();
    assertThat(latency.p50()).isLessThanOrEqualTo(latency.p90());
    assertThat(latency.p90()).isLessThanOrEqualTo(latency.p99());
    assertThat(latency.p99()).isLessThanOrEqualTo(latency.p999());
    assertThat(latency.p999()).isLessThanOrEqualTo(latency.max());
  }
}
