package io.picomq.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.e2e.S3ProxyProcess;
import io.picomq.e2e.ServerProcess;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code pico serve} on S3 (S3Proxy in a process of its own, objects on disk), under load from
 * plain writers, a raw-HTTP producer, an SDK producer session and a reader ({@link FaultLoad}),
 * while the S3 server is first stopped ({@code SIGSTOP}) for longer than the request timeout and
 * then killed ({@code SIGKILL}) and started again. Throughout, every answer is a 200 (204 for a
 * producer's resend) or a typed 503/507 with {@code Retry-After} and the JSON body, never a 500,
 * and arrives within the request timeout plus slack; {@code /ready} turns 503 during each fault and
 * 200 after, and appends are accepted again by themselves. Afterwards, and again after the node
 * itself is killed and restarted, every acknowledged record is readable where it was acknowledged,
 * and each producer's records are there once each, in order.
 *
 * <p>The reader's choice of records is seeded ({@code -Dpicomq.faults.seed=N} repeats it; thread
 * timing still varies from run to run).
 */
class ObjectStorePausedTest {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration BOUND = REQUEST_TIMEOUT.plusSeconds(5);

  /**
   * How long a fault lasts at least. A stopped S3 server fails nothing, it only stalls; the node
   * calls its storage stalled after 10 s ({@code ObjectStoreWatch.DEFAULT_STALL_AFTER}), so the
   * pause lasts until {@code /ready} says so, which is longer than this.
   */
  private static final Duration FAULT_AT_LEAST = REQUEST_TIMEOUT.plusSeconds(1);

  private static final Duration RECOVERY = Duration.ofSeconds(40);

  @TempDir Path dir;
  private final long startedNanos = System.nanoTime();
  private final Answers answers = new Answers(BOUND);

  @Test
  void s3PausedThenKilledUnderLoadAnswersTypedAndBoundedAndLosesNothing() throws Exception {
    long seed = Long.getLong("picomq.faults.seed", System.nanoTime());
    System.out.println(
        "ObjectStorePausedTest seed: " + seed + " (-Dpicomq.faults.seed=" + seed + ")");
    try (S3ProxyProcess s3 = S3ProxyProcess.start(dir.resolve("s3"), "picomq-faults");
        ServerProcess node =
            ServerProcess.startWith(
                dir.resolve("node"),
                s3.credentials(),
                List.of(),
                List.of(
                    "--storage=" + s3.storage(-2),
                    "--request-timeout-sec",
                    Long.toString(REQUEST_TIMEOUT.toSeconds()),
                    // Small caches: the log cache fills during the fault (appends refused for
                    // capacity), and reads of older records have to go to S3.
                    "--wal-cache-size",
                    "2MiB",
                    "--block-cache-size",
                    "1MiB"));
        FaultLoad load = FaultLoad.start(node.endpoint(), answers, seed, BOUND)) {
      step("started", load);
      awaitProgress("before any fault", load, node.adminEndpoint());

      s3.pause();
      try {
        awaitFault("S3 paused", load, node.adminEndpoint());
      } finally {
        s3.resume();
      }
      awaitProgress("after S3 resumed", load, node.adminEndpoint());

      s3.kill();
      try {
        awaitFault("S3 killed", load, node.adminEndpoint());
      } finally {
        s3.restart();
      }
      awaitProgress("after S3 restarted", load, node.adminEndpoint());

      load.stop();
      load.assertNoProblems();
      assertThat(load.progress().refused()).as("answers refused during the faults").isPositive();
      load.assertEverythingAcknowledgedIsThere();
      step("all acknowledged records read back", load);

      node.kill();
      node.restart();
      load.assertEverythingAcknowledgedIsThere();
      step("all acknowledged records read back after the node was killed and restarted", load);
    }
  }

  /**
   * Holds a fault until the node says it is not ready and requests have been refused, and at least
   * {@link #FAULT_AT_LEAST}: longer than the request timeout.
   */
  private void awaitFault(String fault, FaultLoad load, URI admin) throws Exception {
    FaultLoad.Progress before = load.progress();
    long faultNanos = System.nanoTime();
    step(fault, load);
    Answers.awaitTrue(
        "not ready, and requests refused, while " + fault,
        Duration.ofSeconds(40),
        () -> {
          load.assertNoProblems();
          return System.nanoTime() - faultNanos > FAULT_AT_LEAST.toNanos()
              && load.progress().refused() > before.refused()
              && answers.ready(admin) == 503;
        });
    step("not ready while " + fault, load);
  }

  /** Waits until the node is ready and every kind of writer has had appends acknowledged. */
  private void awaitProgress(String when, FaultLoad load, URI admin) throws Exception {
    FaultLoad.Progress before = load.progress();
    Answers.awaitTrue(
        "ready, and appends acknowledged " + when,
        RECOVERY,
        () -> {
          load.assertNoProblems();
          return load.progress().allAdvancedPast(before, 5) && answers.ready(admin) == 200;
        });
    step("ready and appending " + when, load);
  }

  /** Prints where the test is, for reading a failure or a slow run. */
  private void step(String what, FaultLoad load) {
    System.out.printf(
        Locale.ROOT,
        "ObjectStorePausedTest +%.1f s: %s; %s%n  %s%n",
        (System.nanoTime() - startedNanos) / 1e9,
        what,
        load.progress(),
        load.summary());
  }
}
