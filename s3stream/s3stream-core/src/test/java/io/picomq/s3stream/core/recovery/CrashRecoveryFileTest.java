package io.picomq.s3stream.core.recovery;

import io.picomq.s3stream.core.testing.CrashHarness;
import io.picomq.s3stream.core.testing.EngineStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The randomized crash suite on {@code file://} (see {@link CrashHarness}). {@code
 * -Dpicomq.crash.runs=N} sets the number of runs (default sized for CI), {@code -Dpicomq.seed=S}
 * the first seed.
 */
class CrashRecoveryFileTest {

  private static final int DEFAULT_RUNS = 40;

  @TempDir Path directory;

  @TestFactory
  Stream<DynamicTest> acknowledgedRecordsSurviveCrashes() {
    long base = CrashHarness.baseSeed();
    System.out.println("crash suite on file://: first seed " + base);
    return IntStream.range(0, CrashHarness.runs(DEFAULT_RUNS))
        .mapToObj(
            i -> {
              CrashHarness.Scenario scenario = CrashHarness.Scenario.draw(base + i);
              return DynamicTest.dynamicTest(
                  scenario.toString(),
                  () -> {
                    Path dir = Files.createDirectory(directory.resolve("run-" + i));
                    try (EngineStorage storage = EngineStorage.file(dir)) {
                      CrashHarness.Outcome outcome = CrashHarness.run(scenario, storage);
                      System.out.println(scenario.seed() + ": " + outcome);
                    }
                  });
            });
  }
}
