package io.picomq.s3stream.core.upload;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.core.logcache.CacheBlock;
import io.picomq.s3stream.core.logcache.CachedBatch;
import io.picomq.s3stream.core.logcache.LogCache;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import io.picomq.s3stream.core.testing.ForwardingObjectManager;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.core.testing.ManualScheduler;
import io.picomq.s3stream.core.testing.TestPayloads;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.wal.MemoryWal;
import io.picomq.s3stream.wal.MemoryWalVolume;
import io.picomq.s3stream.wal.WalAppendResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pipeline offers a block's commit right behind the previous block's offer, completes commits
 * in block order, and stays safe when a commit fails while the next one is already offered.
 *
 * <p>Everything runs on the calling thread (direct executors, a metadata catalog that answers at
 * once, a scheduler that runs retries only on cue), so each assertion sees a settled state; the
 * catalog is the real in-memory one, answering through a decorator that holds or fails chosen
 * calls.
 */
class UploadPipelineTest {

  private final InMemoryMetadata metadata = new InMemoryMetadata();
  private final InMemoryMetadata.Node node = metadata.register(1, 1);
  private final ScriptedCommits objects = new ScriptedCommits(node);
  private final ManualScheduler scheduler = new ManualScheduler();
  private final MemoryObjectStore store = new MemoryObjectStore();
  private final MemoryWal wal = new MemoryWal(new MemoryWalVolume(), 1);
  private final LogCache cache = new LogCache(1 << 20, 0);
  private final RecordingListener listener = new RecordingListener();
  private final UploadPipeline pipeline;
  private StreamMetadata stream;

  UploadPipelineTest() {
    EngineMetrics metrics = new EngineMetrics(new SimpleMeterRegistry());
    UploadSettings settings =
        new UploadSettings(
            new ObjectNamespace("test"),
            1 << 20,
            64 << 10,
            UploadSettings.DEFAULT_PREPARED_OBJECT_TTL);
    ObjectUploader uploader =
        new ObjectUploader(
            store, objects, settings, UnpooledByteBufAllocator.DEFAULT, metrics, scheduler);
    pipeline =
        new UploadPipeline(
            uploader,
            new CommitRetry(objects, scheduler, metrics),
            wal,
            Runnable::run,
            metrics,
            listener);
  }

  @BeforeEach
  void start() throws Exception {
    wal.start().get(10, TimeUnit.SECONDS);
    wal.recover().get(10, TimeUnit.SECONDS);
    wal.reset().get(10, TimeUnit.SECONDS);
    stream = node.openStream(metadata.createStream()).get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void release() {
    cache.releaseAll(0);
    wal.close();
  }

  @Test
  void aCommitIsOfferedBeforeThePreviousCompletesAndCommitsCompleteInBlockOrder() {
    objects.script(1, Answer.APPLY, true);
    objects.script(2, Answer.APPLY, true);
    CacheBlock first = sealed(0, 3);
    CacheBlock second = sealed(3, 2);
    CompletableFuture<Void> firstCommitted = pipeline.submit(first);
    CompletableFuture<Void> secondCommitted = pipeline.submit(second);

    assertThat(objects.offeredOrderIds())
        .as("the second commit is offered while the first one's answer is held")
        .containsExactly(first.id(), second.id());
    assertThat(metadata.commits())
        .extracting(CommitStreamSetObjectRequest::orderId)
        .containsExactly(first.id(), second.id());

    objects.answer(2);
    assertThat(secondCommitted).as("the second waits for the first").isNotDone();
    assertThat(listener.committed).isEmpty();

    objects.answer(1);
    assertThat(firstCommitted).isCompleted();
    assertThat(secondCommitted).isCompleted();
    assertThat(listener.committed).containsExactly(first.id(), second.id());
    assertThat(listener.failures).isEmpty();
    assertThat(metadata.stream(stream.streamId()).endOffset()).isEqualTo(5);
  }

  @Test
  void aCommitRefusedBecauseThePreviousFailedIsOfferedAgainOnceThatOneApplied() {
    objects.script(1, Answer.LOSE, false); // the first block's first attempt: lost, not applied
    CacheBlock first = sealed(0, 3);
    CacheBlock second = sealed(3, 2);
    CompletableFuture<Void> firstCommitted = pipeline.submit(first);
    CompletableFuture<Void> secondCommitted = pipeline.submit(second);

    // The second block's first attempt reached the plane before the first block's retry: the
    // stream ends at 0 and that commit continues at 3, so the plane refused it.
    assertThat(objects.calls).hasSize(2);
    assertThat(objects.calls.get(1).answer())
        .failsWithin(Duration.ZERO)
        .withThrowableOfType(Exception.class)
        .havingRootCause()
        .isInstanceOf(MetadataRejectedException.class);
    assertThat(secondCommitted).as("not final: the first block has not completed").isNotDone();
    assertThat(listener.failures).isEmpty();

    scheduler.runAll(); // the first block's retry, then the second one's again
    assertThat(firstCommitted).isCompleted();
    assertThat(secondCommitted).isCompleted();
    assertThat(objects.offeredOrderIds())
        .containsExactly(first.id(), second.id(), first.id(), second.id());
    assertThat(metadata.commits())
        .extracting(CommitStreamSetObjectRequest::orderId)
        .containsExactly(first.id(), second.id());
    assertThat(listener.committed).containsExactly(first.id(), second.id());
    assertThat(listener.failures).isEmpty();
    assertThat(metadata.stream(stream.streamId()).endOffset()).isEqualTo(5);
  }

  @Test
  void aRefusedCommitStopsThePipelineAndNoLaterBlockCommits() {
    objects.script(1, Answer.REFUSE, true);
    CacheBlock first = sealed(0, 3);
    CacheBlock second = sealed(3, 2);
    CompletableFuture<Void> firstCommitted = pipeline.submit(first);
    CompletableFuture<Void> secondCommitted = pipeline.submit(second);
    assertThat(objects.offeredOrderIds()).containsExactly(first.id(), second.id());
    assertThat(secondCommitted).isNotDone();

    objects.answer(1);
    assertThat(firstCommitted).isCompletedExceptionally();
    assertThat(secondCommitted).isCompletedExceptionally();
    CompletableFuture<Void> thirdCommitted = pipeline.submit(sealed(5, 1));
    scheduler.runAll();

    assertThat(thirdCommitted).isCompletedExceptionally();
    assertThat(objects.calls).as("nothing offered after the refusal").hasSize(2);
    assertThat(metadata.commits()).isEmpty();
    assertThat(listener.committed).isEmpty();
    assertThat(listener.failures).hasSize(1);
    assertThat(listener.failures.get(0)).isInstanceOf(MetadataRejectedException.class);
    assertThat(pipeline.commitOffered()).isCompletedExceptionally();
  }

  @Test
  void theObjectsAreWrittenBeforeTheWalConfirmsTheBlockButCommittedOnlyAfter() {
    CacheBlock block = appended(0, 3);
    CompletableFuture<Void> committed = pipeline.submit(block);
    assertThat(store.list("").join()).as("the object is written at once").hasSize(1);
    assertThat(objects.calls).as("no commit before the WAL confirmed the block").isEmpty();

    for (int i = 0; i < 3; i++) {
      block.onBatchConfirmed();
    }
    assertThat(committed).isCompleted();
    assertThat(metadata.commits()).hasSize(1);
    assertThat(metadata.stream(stream.streamId()).endOffset()).isEqualTo(3);
  }

  @Test
  void aBlockTheWalFailsIsNeverCommitted() {
    CacheBlock block = appended(0, 3);
    CompletableFuture<Void> committed = pipeline.submit(block);
    block.onBatchFailed(new IllegalStateException("the WAL failed"));

    assertThat(committed).isCompletedExceptionally();
    assertThat(objects.calls).isEmpty();
    assertThat(metadata.commits()).isEmpty();
    assertThat(listener.failures).hasSize(1);
  }

  /** {@link #appended}, with every batch confirmed by the WAL. */
  private CacheBlock sealed(long base, int count) {
    CacheBlock block = appended(base, count);
    for (int i = 0; i < count; i++) {
      block.onBatchConfirmed();
    }
    return block;
  }

  /**
   * Appends {@code count} one-record batches from {@code base} to the WAL and the log cache, and
   * seals the block; the block does not know yet that the WAL stored them.
   */
  private CacheBlock appended(long base, int count) {
    for (int i = 0; i < count; i++) {
      long offset = base + i;
      ByteBuf payload = TestPayloads.of(stream.streamId(), offset, 1, 100);
      ByteBuf encoded =
          RecordBatchCodec.encode(
              new RecordBatch(stream.streamId(), stream.epoch(), offset, 1, payload),
              UnpooledByteBufAllocator.DEFAULT);
      payload.release();
      WalAppendResult.Accepted accepted = (WalAppendResult.Accepted) wal.append(encoded);
      assertThat(accepted.durable()).isCompleted();
      cache.put(
          stream.streamId(),
          stream.epoch(),
          new CachedBatch(offset, 1, encoded),
          accepted.offset());
    }
    return cache.seal(0);
  }

  private enum Answer {
    /** Passed on to the catalog. */
    APPLY,
    /** Not applied; fails as a lost connection does (worth retrying). */
    LOSE,
    /** Not applied; refused as a fenced node is. */
    REFUSE
  }

  /** A commit the pipeline offered, and what it was answered. */
  private record Call(CommitStreamSetObjectRequest request, CompletableFuture<Void> answer) {}

  /**
   * The node's catalog, where a chosen commit call (counted from 1) is answered as scripted, at
   * once or only on {@link #answer}. An applied commit is applied when called, whenever it is
   * answered.
   */
  private static final class ScriptedCommits extends ForwardingObjectManager {
    private final Map<Integer, Answer> answers = new HashMap<>();
    private final Map<Integer, CompletableFuture<Void>> gates = new HashMap<>();
    final List<Call> calls = new ArrayList<>();

    ScriptedCommits(ObjectManager delegate) {
      super(delegate);
    }

    void script(int call, Answer answer, boolean held) {
      answers.put(call, answer);
      gates.put(call, held ? new CompletableFuture<>() : CompletableFuture.completedFuture(null));
    }

    void answer(int call) {
      gates.get(call).complete(null);
    }

    List<Long> offeredOrderIds() {
      return calls.stream().map(c -> c.request().orderId()).toList();
    }

    @Override
    public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
      int n = calls.size() + 1;
      CompletableFuture<Void> outcome =
          switch (answers.getOrDefault(n, Answer.APPLY)) {
            case APPLY -> delegate.commitStreamSetObject(request);
            case LOSE ->
                CompletableFuture.failedFuture(new IllegalStateException("connection lost"));
            case REFUSE ->
                CompletableFuture.failedFuture(
                    new MetadataRejectedException(
                        MetadataRejectedException.Reason.FENCED, "the stream was fenced"));
          };
      CompletableFuture<Void> gate = gates.getOrDefault(n, CompletableFuture.completedFuture(null));
      CompletableFuture<Void> answer = gate.thenCompose(ignored -> outcome);
      calls.add(new Call(request, answer));
      return answer;
    }
  }

  /** What the pipeline told the engine, in order. */
  private static final class RecordingListener implements UploadPipeline.Listener {
    final List<Long> committed = new ArrayList<>();
    final List<Throwable> failures = new ArrayList<>();

    @Override
    public void onCommitted(CacheBlock block) {
      committed.add(block.id());
    }

    @Override
    public void onFailed(Throwable error) {
      failures.add(error);
    }
  }
}
