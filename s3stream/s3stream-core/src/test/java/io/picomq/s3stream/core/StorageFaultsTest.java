package io.picomq.s3stream.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.core.testing.EngineStorage;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.core.testing.StreamReads;
import io.picomq.s3stream.core.testing.TestEngine;
import io.picomq.s3stream.objectstore.FaultInjectingObjectStore;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.RetryPolicy;
import io.picomq.s3stream.objectstore.RetryingObjectStore;
import io.picomq.s3stream.time.Scheduler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Faults from storage, injected by decorators around a real (memory) store: transient errors and
 * lost answers are retried and cost only time; a paused store holds acknowledgements back; a
 * permanent failure is sticky. In every case nothing acknowledged is lost, and no key (a WAL object
 * names its offsets) is ever written twice with different bytes.
 */
class StorageFaultsTest {

  private static final RetryPolicy FAST_RETRIES =
      new RetryPolicy(
          50,
          Duration.ofMillis(2),
          Duration.ofMillis(20),
          Duration.ofSeconds(30),
          Duration.ofSeconds(5));

  private final EngineStorage storage = EngineStorage.memoryStore();
  private final InMemoryMetadata metadata = new InMemoryMetadata();
  private final RecordingStore recorded = new RecordingStore(storage.dataStore);
  private final List<TestEngine> engines = new ArrayList<>();
  private long epoch = 1;

  @AfterEach
  void close() {
    for (TestEngine engine : engines) {
      try {
        engine.shutdown();
      } catch (AssertionError failedOnPurpose) {
        // an engine whose storage failed for good cannot flush
      }
    }
    storage.close();
    assertThat(recorded.rewrites).as("keys rewritten with other bytes").isEmpty();
  }

  private TestEngine start(ObjectStore store) throws Exception {
    TestEngine engine = storage.engine(metadata.register(1, epoch++), store, store, c -> c);
    engines.add(engine);
    engine.engine.start().get(30, TimeUnit.SECONDS);
    return engine;
  }

  private static ByteBuf payload(String id) {
    return Unpooled.copiedBuffer(id + "|" + "x".repeat(200), StandardCharsets.ISO_8859_1);
  }

  private static List<CompletableFuture<AppendOutcome>> appendAll(
      Stream stream, String prefix, int n) {
    List<CompletableFuture<AppendOutcome>> outcomes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ByteBuf p = payload(prefix + i);
      CompletableFuture<AppendOutcome> f = stream.append(1, p);
      f.whenComplete((o, e) -> p.release());
      outcomes.add(f);
    }
    return outcomes;
  }

  private void assertReadableAfterRestart(long streamId, String prefix, int n) throws Exception {
    TestEngine reader = start(recorded);
    Stream stream = reader.engine.openStream(streamId).get();
    List<String> ids =
        StreamReads.readAll(stream, 0, n, 1 << 20).stream().map(StreamReads::readBatchId).toList();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      expected.add(prefix + i);
    }
    assertThat(ids).isEqualTo(expected);
  }

  @Test
  void transientErrorsAndLostAnswersAreRetriedAndLoseNothing() throws Exception {
    FlakyStore flaky = new FlakyStore(recorded);
    ObjectStore retrying =
        new RetryingObjectStore(flaky, FAST_RETRIES, Scheduler.system(), new Random(12));
    TestEngine engine = start(retrying);
    long id = metadata.createStream();
    Stream stream = engine.engine.openStream(id).get();
    List<CompletableFuture<AppendOutcome>> outcomes = appendAll(stream, "t", 300);
    for (int i = 0; i < outcomes.size(); i++) {
      assertThat(outcomes.get(i).get(60, TimeUnit.SECONDS))
          .isEqualTo(new AppendOutcome.Appended(i, i + 1));
    }
    engine.shutdown();
    assertThat(flaky.failed.get()).as("503s injected").isPositive();
    assertThat(flaky.lostAnswers.get()).as("answers lost after the write").isPositive();
    assertReadableAfterRestart(id, "t", 300);
  }

  @Test
  void aPausedStoreHoldsAcknowledgementsBackUntilItResumes() throws Exception {
    FaultInjectingObjectStore pausable = new FaultInjectingObjectStore(recorded);
    TestEngine engine = start(pausable);
    long id = metadata.createStream();
    Stream stream = engine.engine.openStream(id).get();
    pausable.pause();
    List<CompletableFuture<AppendOutcome>> outcomes = appendAll(stream, "p", 50);
    // Several WAL batches came due and their PUTs are held: still nothing may be acknowledged.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (pausable.calls() < 3 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(pausable.calls()).isGreaterThanOrEqualTo(3);
    assertThat(outcomes).noneMatch(CompletableFuture::isDone);
    assertThat(stream.confirmOffset()).isZero();
    pausable.resume();
    for (int i = 0; i < outcomes.size(); i++) {
      assertThat(outcomes.get(i).get(30, TimeUnit.SECONDS))
          .isEqualTo(new AppendOutcome.Appended(i, i + 1));
    }
    engine.shutdown();
    assertReadableAfterRestart(id, "p", 50);
  }

  @Test
  void aPermanentFailureIsStickyAndKeepsWhatWasAcknowledged() throws Exception {
    FaultInjectingObjectStore failing = new FaultInjectingObjectStore(recorded);
    TestEngine engine = start(failing);
    long id = metadata.createStream();
    Stream stream = engine.engine.openStream(id).get();
    for (CompletableFuture<AppendOutcome> f : appendAll(stream, "k", 10)) {
      assertThat(f.get(30, TimeUnit.SECONDS)).isInstanceOf(AppendOutcome.Appended.class);
    }
    failing.failNext(1_000_000, FaultInjectingObjectStore::accessDenied);
    CompletableFuture<AppendOutcome> doomed = appendAll(stream, "doomed", 1).get(0);
    assertThatThrownBy(() -> doomed.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
    CompletableFuture<AppendOutcome> later = appendAll(stream, "later", 1).get(0);
    assertThatThrownBy(() -> later.get(30, TimeUnit.SECONDS))
        .as("the failure is sticky")
        .isInstanceOf(ExecutionException.class);
    assertReadableAfterRestart(id, "k", 10);
  }

  /**
   * Fails every tenth call with a 503 before the store sees it, and loses the answer of every tenth
   * put after the store took it.
   */
  private static final class FlakyStore implements ObjectStore {
    private final ObjectStore delegate;
    private final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
    final AtomicInteger lostAnswers = new AtomicInteger();

    FlakyStore(ObjectStore delegate) {
      this.delegate = delegate;
    }

    private int roll() {
      return calls.incrementAndGet() % 10;
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuf data) {
      int roll = roll();
      if (roll == 0) {
        failed.incrementAndGet();
        return CompletableFuture.failedFuture(FaultInjectingObjectStore.slowDown());
      }
      CompletableFuture<Void> stored = delegate.put(key, data);
      if (roll == 1) {
        lostAnswers.incrementAndGet();
        return stored.thenCompose(
            v -> CompletableFuture.failedFuture(FaultInjectingObjectStore.timeout()));
      }
      return stored;
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, long start, long end) {
      if (roll() == 0) {
        failed.incrementAndGet();
        return CompletableFuture.failedFuture(FaultInjectingObjectStore.slowDown());
      }
      return delegate.get(key, start, end);
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
      return delegate.list(prefix);
    }

    @Override
    public CompletableFuture<Void> delete(List<String> keys) {
      return delegate.delete(keys);
    }

    @Override
    public void close() {}
  }

  /** Remembers every key's bytes and records a key written again with other bytes. */
  private static final class RecordingStore implements ObjectStore {
    private final ObjectStore delegate;
    private final Map<String, byte[]> written = new ConcurrentHashMap<>();
    final List<String> rewrites = Collections.synchronizedList(new ArrayList<>());

    RecordingStore(ObjectStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuf data) {
      byte[] bytes = ByteBufUtil.getBytes(data);
      byte[] before = written.putIfAbsent(key, bytes);
      if (before != null && !Arrays.equals(before, bytes)) {
        rewrites.add(key);
      }
      return delegate.put(key, data);
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, long start, long end) {
      return delegate.get(key, start, end);
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
      return delegate.list(prefix);
    }

    @Override
    public CompletableFuture<Void> delete(List<String> keys) {
      return delegate.delete(keys);
    }

    @Override
    public void close() {}
  }
}
