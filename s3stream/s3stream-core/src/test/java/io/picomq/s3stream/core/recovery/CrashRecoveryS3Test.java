package io.picomq.s3stream.core.recovery;

import io.picomq.s3stream.core.testing.CrashHarness;
import io.picomq.s3stream.core.testing.EngineStorage;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.s3.S3ProxyServer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The randomized crash suite on S3 (S3Proxy on loopback; see {@link CrashHarness}). Runs share one
 * bucket, each under its own cluster id and namespace. {@code -Dpicomq.crash.runs=N} and {@code
 * -Dpicomq.seed=S} as for the file suite.
 */
class CrashRecoveryS3Test {

  private static final int DEFAULT_RUNS = 20;

  private static S3ProxyServer server;
  private static ObjectStore store;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3ProxyServer.start();
    store = server.openStore();
  }

  @AfterAll
  static void stopServer() throws Exception {
    store.close();
    server.close();
  }

  @TestFactory
  Stream<DynamicTest> acknowledgedRecordsSurviveCrashes() {
    long base = CrashHarness.baseSeed();
    System.out.println("crash suite on S3Proxy: first seed " + base);
    return IntStream.range(0, CrashHarness.runs(DEFAULT_RUNS))
        .mapToObj(
            i -> {
              CrashHarness.Scenario scenario = CrashHarness.Scenario.draw(base + i);
              return DynamicTest.dynamicTest(
                  scenario.toString(),
                  () -> {
                    try (EngineStorage storage = EngineStorage.s3(store)) {
                      CrashHarness.Outcome outcome = CrashHarness.run(scenario, storage);
                      System.out.println(scenario.seed() + ": " + outcome);
                    }
                  });
            });
  }
}
