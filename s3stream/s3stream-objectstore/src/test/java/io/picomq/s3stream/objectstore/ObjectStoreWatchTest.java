package io.picomq.s3stream.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.nio.file.FileSystemException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link ObjectStoreWatch} around a real memory store with faults injected on cue. */
class ObjectStoreWatchTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final FaultInjectingObjectStore faults =
      new FaultInjectingObjectStore(new MemoryObjectStore());
  private final ObjectStoreWatch watch =
      new ObjectStoreWatch("wal", nanos::get, Duration.ofSeconds(10), Duration.ofSeconds(30));
  private final ObjectStore store = watch.watch(faults);

  @Test
  void aFailedCallIsAProblemUntilACallSucceeds() {
    faults.failNext(1, FaultInjectingObjectStore::slowDown);
    assertThat(put("a")).isCompletedExceptionally();
    assertThat(watch.problem())
        .hasValueSatisfying(
            problem -> {
              assertThat(problem.noSpace()).isFalse();
              assertThat(problem.detail()).startsWith("wal storage: ").contains("SlowDown");
            });

    advance(Duration.ofMillis(1));
    assertThat(put("b")).isCompleted();
    assertThat(watch.problem()).isEmpty();
  }

  @Test
  void noSpaceIsToldApartFromTheCauseChain() {
    faults.failNext(
        1,
        () ->
            new ObjectStoreException(
                ObjectStoreException.Kind.TRANSIENT,
                "PUT failed",
                new FileSystemException("/v/x.tmp", null, "No space left on device")));
    put("a");
    assertThat(watch.problem()).hasValueSatisfying(p -> assertThat(p.noSpace()).isTrue());
  }

  @Test
  void aFailureIsForgottenAfterTheMemoryWhenNothingProbes() {
    faults.failNext(1, FaultInjectingObjectStore::slowDown);
    put("a");
    advance(Duration.ofSeconds(29));
    assertThat(watch.problem()).isPresent();
    advance(Duration.ofSeconds(2));
    assertThat(watch.problem()).isEmpty();
  }

  @Test
  void aMissingKeyIsNoProblem() {
    assertThat(store.get("absent", 0, -1)).isCompletedExceptionally();
    assertThat(watch.problem()).isEmpty();
  }

  @Test
  void aCallWithoutAnswerIsAProblemOnceItOutlastsTheStallThreshold() {
    faults.pause();
    CompletableFuture<Void> held = put("a");
    advance(Duration.ofSeconds(9));
    assertThat(watch.problem()).isEmpty();
    advance(Duration.ofSeconds(2));
    assertThat(watch.problem())
        .hasValueSatisfying(p -> assertThat(p.detail()).contains("no answer for 11 s"));

    faults.resume();
    assertThat(held).isCompleted();
    assertThat(watch.problem()).isEmpty();
  }

  private CompletableFuture<Void> put(String key) {
    return store.put(key, Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
  }

  private void advance(Duration by) {
    nanos.addAndGet(by.toNanos());
  }
}
