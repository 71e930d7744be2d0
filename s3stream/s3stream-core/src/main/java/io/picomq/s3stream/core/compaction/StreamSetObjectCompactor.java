package io.picomq.s3stream.core.compaction;

import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.StreamObject;
import io.picomq.s3stream.api.StreamOffsetRange;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.object.ObjectWriter;
import io.picomq.s3stream.object.StreamRange;
import io.picomq.s3stream.object.WrittenObject;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongPredicate;

/**
 * Compacts this node's stream-set objects on the node that owns them: plans with {@link
 * CompactionPlanner}, then carries the plan out round by round and commits it in one atomic call.
 *
 * <p>One run: list the node's stream-set objects (the oldest {@code maxSourceObjects}), open them
 * (footer and index), snapshot the stream starts, plan, prepare one object id per object to write,
 * then for each round read its blocks (one GET per run of adjacent blocks), write and upload its
 * stream objects, and copy its stream-set object part into the one stream-set object writer. After
 * the last round the stream-set object is uploaded and everything is committed with {@link
 * ObjectManager#commitStreamSetObject}, naming every source as compacted. Batches are copied whole
 * and unchanged; batches that end at or before their stream's start are left behind.
 *
 * <p>Memory: a round holds at most the cache size of blocks it read, plus the stream objects it is
 * uploading. The stream-set object grows over the rounds until its single upload: the object store
 * has no multipart upload, and a commit names one stream-set object. To keep it within the cache
 * size too, a plan whose stream-set object would be larger is made again from the older half of the
 * objects, until it fits or only two objects are left; the rest waits for the next run.
 *
 * <p>Failure: every future completes. If anything fails before the commit, nothing is committed and
 * the sources stay as they were; objects already uploaded are never committed, and their prepared
 * ids expire and are collected. A rejected commit fails with the object manager's error.
 *
 * <p>Threading: one run at a time ({@link #compact} fails fast while another runs). Reads and
 * uploads complete on the store's threads; copying batches into new objects runs on {@code
 * executor}. The state of a run is confined to its chain of stages, which never overlap.
 */
public final class StreamSetObjectCompactor {

  private final ObjectStore store;
  private final ObjectManager objectManager;
  private final CompactionLimits limits;
  private final CompactionPlanner planner;
  private final CompactionSettings settings;
  private final ByteBufAllocator allocator;
  private final Executor executor;
  private final AtomicBoolean running = new AtomicBoolean();

  /**
   * @param executor runs the copying of batches into new objects (CPU work)
   */
  public StreamSetObjectCompactor(
      ObjectStore store,
      ObjectManager objectManager,
      CompactionLimits limits,
      CompactionSettings settings,
      ByteBufAllocator allocator,
      Executor executor) {
    this.store = Objects.requireNonNull(store, "store");
    this.objectManager = Objects.requireNonNull(objectManager, "objectManager");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.planner = new CompactionPlanner(limits);
    this.settings = Objects.requireNonNull(settings, "settings");
    this.allocator = Objects.requireNonNull(allocator, "allocator");
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  /**
   * Runs one compaction.
   *
   * @param starts where each stream's live data begins; read once per stream, at planning time
   * @param excludedStreams streams whose data must not move now (see {@link CompactionPlanner})
   * @return what was done; fails with {@link IllegalStateException} if a run is in progress, with
   *     the store's or the object manager's error otherwise
   */
  public CompletableFuture<CompactionOutcome> compact(
      StreamStarts starts, Set<Long> excludedStreams) {
    Set<Long> excluded = Set.copyOf(excludedStreams);
    return compact(starts, excluded::contains);
  }

  /**
   * As {@link #compact(StreamStarts, Set)}, with the excluded streams decided per stream once the
   * source objects are open: the caller need not know beforehand which streams they hold (the
   * engine excludes every stream it does not have open at planning time).
   *
   * @param excluded tells, once per stream of the source objects, whether its data must not move
   */
  public CompletableFuture<CompactionOutcome> compact(StreamStarts starts, LongPredicate excluded) {
    Objects.requireNonNull(starts, "starts");
    Objects.requireNonNull(excluded, "excluded");
    if (!running.compareAndSet(false, true)) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("a stream-set object compaction is already running"));
    }
    CompletableFuture<CompactionOutcome> outcome;
    try {
      outcome =
          objectManager
              .getStreamSetObjects()
              .thenCompose(
                  objects ->
                      SourceReaders.open(
                          store,
                          settings.namespace(),
                          objects.subList(
                              0, Math.min(objects.size(), settings.maxSourceObjects()))))
              .thenCompose(
                  sources -> planAndRun(sources, starts, excludedOf(sources.objects(), excluded)));
    } catch (RuntimeException e) {
      outcome = CompletableFuture.failedFuture(e);
    }
    return outcome.whenComplete((ignored, error) -> running.set(false));
  }

  private static Set<Long> excludedOf(List<SourceObject> objects, LongPredicate excluded) {
    Set<Long> streams = new HashSet<>();
    for (SourceObject object : objects) {
      for (SourceBlock block : object.blocks()) {
        streams.add(block.streamId());
      }
    }
    streams.removeIf(streamId -> !excluded.test(streamId));
    return streams;
  }

  private CompletableFuture<CompactionOutcome> planAndRun(
      SourceReaders sources, StreamStarts starts, Set<Long> excluded) {
    StreamStarts snapshot = snapshot(sources.objects(), starts);
    CompactionPlan plan = choosePlan(sources.objects(), snapshot, excluded);
    if (plan.isEmpty()) {
      return CompletableFuture.completedFuture(new CompactionOutcome.NothingToCompact(plan));
    }
    int ids = plan.streamObjectCount() + (plan.writesStreamSetObject() ? 1 : 0);
    CompletableFuture<Long> firstId =
        ids == 0
            ? CompletableFuture.completedFuture(-1L)
            : objectManager.prepareObjects(ids, settings.preparedObjectTtl());
    return firstId.thenCompose(first -> new Run(plan, sources, snapshot, first).execute());
  }

  /**
   * Plans over all objects; if the stream-set object would exceed the cache size (it is built in
   * memory), plans again over the older half, until it fits or two objects are left. The rest waits
   * for the next run.
   */
  private CompactionPlan choosePlan(
      List<SourceObject> objects, StreamStarts starts, Set<Long> excluded) {
    CompactionPlan plan = planner.plan(objects, starts, excluded);
    while (plan.streamSetObjectBytes() > limits.cacheSizeBytes() && objects.size() > 2) {
      objects = objects.subList(0, Math.max(2, objects.size() / 2));
      CompactionPlan smaller = planner.plan(objects, starts, excluded);
      if (smaller.isEmpty()) {
        break; // better the larger object than no compaction at all
      }
      plan = smaller;
    }
    return plan;
  }

  /** Asks {@code starts} once per stream, so planning and copying see the same offsets. */
  private static StreamStarts snapshot(List<SourceObject> objects, StreamStarts starts) {
    Map<Long, OptionalLong> seen = new HashMap<>();
    for (SourceObject object : objects) {
      for (SourceBlock block : object.blocks()) {
        seen.computeIfAbsent(block.streamId(), starts::startOffset);
      }
    }
    return streamId -> seen.getOrDefault(streamId, OptionalLong.empty());
  }

  /** The execution of one plan; its fields are touched by one stage at a time. */
  private final class Run {
    private final CompactionPlan plan;
    private final SourceReaders sources;
    private final StreamStarts starts;
    private final long streamSetObjectId;
    private long nextStreamObjectId;
    private final ObjectWriter streamSet;
    private final List<StreamObject> streamObjects = new ArrayList<>();

    Run(CompactionPlan plan, SourceReaders sources, StreamStarts starts, long firstId) {
      this.plan = plan;
      this.sources = sources;
      this.starts = starts;
      boolean writesStreamSet = plan.writesStreamSetObject();
      this.streamSetObjectId = writesStreamSet ? firstId : -1;
      this.nextStreamObjectId = writesStreamSet ? firstId + 1 : firstId;
      this.streamSet =
          writesStreamSet ? new ObjectWriter(settings.blockSizeThresholdBytes(), allocator) : null;
    }

    CompletableFuture<CompactionOutcome> execute() {
      CompletableFuture<Void> rounds = CompletableFuture.completedFuture(null);
      for (CompactionRound round : plan.rounds()) {
        rounds = rounds.thenCompose(ignored -> runRound(round));
      }
      return rounds
          .thenCompose(ignored -> uploadStreamSet())
          .thenCompose(this::commit)
          .whenComplete(
              (ignored, error) -> {
                if (streamSet != null) {
                  streamSet.close(); // frees what an unfinished writer holds; no-op once finished
                }
              });
    }

    private CompletableFuture<Void> runRound(CompactionRound round) {
      return sources
          .read(round.blocks())
          .thenComposeAsync(batches -> writeRound(round, batches), executor);
    }

    private CompletableFuture<Void> writeRound(
        CompactionRound round, Map<SourceBlock, List<RecordBatch>> batches) {
      List<CompletableFuture<WrittenObject>> uploads = new ArrayList<>();
      try {
        for (PlannedObject object : round.objects()) {
          switch (object) {
            case PlannedObject.Split split -> uploads.add(writeStreamObject(split, batches));
            case PlannedObject.Compact compact -> copy(compact.blocks(), batches, streamSet);
          }
        }
      } finally {
        SourceReaders.release(batches);
      }
      return CompletableFuture.allOf(uploads.toArray(CompletableFuture<?>[]::new))
          .thenRun(
              () -> uploads.forEach(upload -> streamObjects.add(asStreamObject(upload.join()))));
    }

    private CompletableFuture<WrittenObject> writeStreamObject(
        PlannedObject.Split split, Map<SourceBlock, List<RecordBatch>> batches) {
      ObjectWriter writer = new ObjectWriter(settings.blockSizeThresholdBytes(), allocator);
      try {
        copy(split.blocks(), batches, writer);
      } catch (RuntimeException e) {
        writer.close();
        throw e;
      }
      return writer.upload(store, settings.namespace(), nextStreamObjectId++);
    }

    private void copy(
        List<SourceBlock> blocks,
        Map<SourceBlock, List<RecordBatch>> batches,
        ObjectWriter writer) {
      for (SourceBlock block : blocks) {
        List<RecordBatch> ofBlock = batches.remove(block);
        long start = starts.startOffset(block.streamId()).orElseThrow();
        LiveBatches.copy(ofBlock, start, writer, allocator);
      }
    }

    private CompletableFuture<WrittenObject> uploadStreamSet() {
      if (streamSet == null || streamSet.isEmpty()) {
        return CompletableFuture.completedFuture(null);
      }
      return streamSet.upload(store, settings.namespace(), streamSetObjectId);
    }

    private CompletableFuture<CompactionOutcome> commit(WrittenObject written) {
      List<StreamOffsetRange> ranges = new ArrayList<>();
      if (written != null) {
        for (StreamRange range : written.streamRanges()) {
          ranges.add(
              new StreamOffsetRange(range.streamId(), range.startOffset(), range.endOffset()));
        }
      }
      CommitStreamSetObjectRequest request =
          new CommitStreamSetObjectRequest(
              written == null ? -1 : written.objectId(),
              // The merged object takes the place of the oldest object it replaces.
              Collections.min(plan.compactedObjectIds()),
              written == null ? 0 : written.sizeBytes(),
              ranges,
              streamObjects,
              plan.compactedObjectIds());
      return objectManager
          .commitStreamSetObject(request)
          .thenApply(ignored -> new CompactionOutcome.Compacted(plan, request));
    }
  }

  /** A stream object as a commit names it; one gap-free range by construction of the plan. */
  static StreamObject asStreamObject(WrittenObject written) {
    List<StreamRange> ranges = written.streamRanges();
    if (ranges.size() != 1) {
      throw new IllegalStateException(
          "stream object " + written.objectId() + " must hold one range, holds " + ranges);
    }
    StreamRange range = ranges.get(0);
    return new StreamObject(
        written.objectId(),
        written.sizeBytes(),
        new StreamOffsetRange(range.streamId(), range.startOffset(), range.endOffset()),
        written.attributes().value());
  }
}
