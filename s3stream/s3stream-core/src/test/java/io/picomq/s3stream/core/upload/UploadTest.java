package io.picomq.s3stream.core.upload;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.ObjectMetadata.ObjectType;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamOffsetRange;
import io.picomq.s3stream.core.testing.EngineStorage;
import io.picomq.s3stream.core.testing.ForwardingObjectManager;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.core.testing.StreamReads;
import io.picomq.s3stream.core.testing.TestEngine;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.object.ObjectReader;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Uploads split large streams into stream objects and commit in seal order even when overlapping.
 */
class UploadTest {

  private final EngineStorage storage = EngineStorage.memoryWal();
  private final InMemoryMetadata metadata = new InMemoryMetadata();
  private final List<TestEngine> engines = new ArrayList<>();

  @AfterEach
  void close() {
    engines.forEach(TestEngine::shutdown);
    storage.close();
  }

  private TestEngine start(ObjectStore data, UnaryOperator<EngineConfig.Builder> tune)
      throws Exception {
    TestEngine engine = storage.engine(metadata.register(1, 1), data, data, tune);
    engines.add(engine);
    engine.engine.start().get(10, TimeUnit.SECONDS);
    return engine;
  }

  private static void append(Stream stream, int count, int bytes) throws Exception {
    for (int i = 0; i < count; i++) {
      ByteBuf payload = Unpooled.wrappedBuffer(new byte[bytes]);
      try {
        assertThat(stream.append(1, payload).get(10, TimeUnit.SECONDS))
            .isInstanceOf(AppendOutcome.Appended.class);
      } finally {
        payload.release();
      }
    }
  }

  @Test
  void streamsAtTheSplitSizeGetStreamObjectsAndTheRestShareOneStreamSetObject() throws Exception {
    TestEngine engine = start(storage.dataStore, c -> c.streamSplitSizeBytes(4096));
    Stream big = engine.engine.openStream(metadata.createStream()).get();
    Stream small = engine.engine.openStream(metadata.createStream()).get();
    Stream tiny = engine.engine.openStream(metadata.createStream()).get();
    append(big, 10, 1000);
    append(small, 3, 300);
    append(tiny, 1, 100);
    engine.engine.shutdown().get(10, TimeUnit.SECONDS);

    List<CommitStreamSetObjectRequest> commits = metadata.commits();
    assertThat(commits).hasSize(1);
    CommitStreamSetObjectRequest commit = commits.get(0);
    assertThat(commit.streamObjects())
        .extracting(o -> o.range())
        .containsExactly(new StreamOffsetRange(big.streamId(), 0, 10));
    assertThat(commit.streamSetRanges())
        .containsExactly(
            new StreamOffsetRange(small.streamId(), 0, 3),
            new StreamOffsetRange(tiny.streamId(), 0, 1));
    assertThat(commit.streamEpochs())
        .containsEntry(big.streamId(), big.epoch())
        .containsEntry(small.streamId(), small.epoch());
    assertThat(metadata.objects())
        .extracting(ObjectMetadata::type)
        .containsExactlyInAnyOrder(ObjectType.STREAM, ObjectType.STREAM_SET);
    // The objects are where the namespace says, and hold what the commit says.
    ObjectNamespace namespace = new ObjectNamespace(storage.namespace);
    for (ObjectMetadata object : metadata.objects()) {
      ObjectReader reader =
          ObjectReader.open(storage.dataStore, namespace, object.objectId(), object.sizeBytes())
              .get();
      assertThat(reader.index().entries()).isNotEmpty();
    }
  }

  @Test
  void overlappingUploadsCommitInSealOrder() throws Exception {
    GatedStore gated = new GatedStore(storage.dataStore);
    TestEngine engine =
        start(gated, c -> c.walCacheSizeBytes(1 << 20).walUploadThresholdBytes(20_000));
    Stream stream = engine.engine.openStream(metadata.createStream()).get();
    append(stream, 25, 1000); // block 0 sealed at ~20 KB: its object PUT is held
    gated.firstHeld.await(10, TimeUnit.SECONDS);
    append(stream, 25, 1000); // block 1 sealed: its object is written meanwhile
    gated.secondDone.await(10, TimeUnit.SECONDS);
    assertThat(metadata.commits()).as("block 1 may not commit before block 0").isEmpty();

    gated.release.countDown();
    long end = stream.nextOffset();
    CompletableFuture<Void> closed = stream.close();
    closed.get(10, TimeUnit.SECONDS);
    List<CommitStreamSetObjectRequest> commits = metadata.commits();
    assertThat(commits.size()).isGreaterThanOrEqualTo(2);
    assertThat(commits).extracting(CommitStreamSetObjectRequest::orderId).isSorted();
    assertThat(metadata.stream(stream.streamId()).endOffset()).isEqualTo(end);
    Stream reopened = engine.engine.openStream(stream.streamId()).get();
    assertThat(StreamReads.readAll(reopened, 0, end, 1 << 20)).hasSize((int) end);
  }

  @Test
  void anUploadAfterTheFirstWritesWithoutWaitingForAPrepare() throws Exception {
    InMemoryMetadata.Node node = metadata.register(1, 1);
    HeldPrepares objects = new HeldPrepares(node, 0);
    TestEngine engine = start(node, objects);
    Stream first = engine.engine.openStream(metadata.createStream()).get();
    append(first, 1, 100);
    first.close().get(10, TimeUnit.SECONDS); // prepares its object's id, and one for the next
    Awaitility.await("the id for the next upload prepared")
        .atMost(Duration.ofSeconds(10))
        .until(() -> objects.answered.get() == 2);

    objects.hold();
    Stream second = engine.engine.openStream(metadata.createStream()).get();
    append(second, 1, 100);
    // A close waits for its upload: with a prepare first, this one would wait for the held one.
    second.close().get(10, TimeUnit.SECONDS);

    assertThat(metadata.commits()).hasSize(2);
    assertThat(metadata.stream(second.streamId()).endOffset()).isEqualTo(1);
    objects.release();
  }

  @Test
  void anIdPreparedAheadThatFailedIsPreparedAgainWhenNeeded() throws Exception {
    InMemoryMetadata.Node node = metadata.register(1, 1);
    HeldPrepares objects = new HeldPrepares(node, 2); // the one prepared ahead fails
    TestEngine engine = start(node, objects);
    Stream first = engine.engine.openStream(metadata.createStream()).get();
    append(first, 1, 100);
    first.close().get(10, TimeUnit.SECONDS);

    Stream second = engine.engine.openStream(metadata.createStream()).get();
    append(second, 1, 100);
    second.close().get(10, TimeUnit.SECONDS);

    assertThat(metadata.commits()).hasSize(2);
    assertThat(metadata.stream(second.streamId()).endOffset()).isEqualTo(1);
  }

  private TestEngine start(InMemoryMetadata.Node node, ObjectManager objects) throws Exception {
    TestEngine engine =
        storage.engine(1, 1, node, objects, storage.dataStore, storage.dataStore, c -> c);
    engines.add(engine);
    engine.engine.start().get(10, TimeUnit.SECONDS);
    return engine;
  }

  /**
   * The node's catalog, with a switch that holds every later {@code prepareObjects} until released,
   * and one call (counted from 1; 0: none) that fails.
   */
  private static final class HeldPrepares extends ForwardingObjectManager {
    private final int failing;
    private final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger answered = new AtomicInteger();
    private final CompletableFuture<Void> released = new CompletableFuture<>();
    private volatile boolean holding;

    HeldPrepares(ObjectManager delegate, int failing) {
      super(delegate);
      this.failing = failing;
    }

    void hold() {
      holding = true;
    }

    void release() {
      released.complete(null);
    }

    @Override
    public CompletableFuture<Long> prepareObjects(int count, Duration ttl) {
      if (calls.incrementAndGet() == failing) {
        return CompletableFuture.failedFuture(new IllegalStateException("metadata is away"));
      }
      CompletableFuture<Void> gate = holding ? released : CompletableFuture.completedFuture(null);
      return gate.thenCompose(ignored -> delegate.prepareObjects(count, ttl))
          .whenComplete((id, error) -> answered.incrementAndGet());
    }
  }

  /** Holds the first PUT until released; lets later ones through. */
  private static final class GatedStore implements ObjectStore {
    private final ObjectStore delegate;
    private final AtomicInteger puts = new AtomicInteger();
    final CountDownLatch firstHeld = new CountDownLatch(1);
    final CountDownLatch secondDone = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    GatedStore(ObjectStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuf data) {
      int n = puts.incrementAndGet();
      if (n == 1) {
        ByteBuf copy = data.retainedDuplicate();
        firstHeld.countDown();
        return CompletableFuture.runAsync(
                () -> {
                  try {
                    release.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                })
            .thenCompose(v -> delegate.put(key, copy))
            .whenComplete((v, e) -> copy.release());
      }
      return delegate.put(key, data).whenComplete((v, e) -> secondDone.countDown());
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
