package io.picomq.s3stream.core.compaction;

import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.object.ObjectWriter;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Merges a stream's small stream objects into larger ones and rewrites the one a trim left
 * straddling the stream's start offset, on the stream's owner. Each merge ({@link
 * StreamObjectMergePlanner}) prepares one object id, reads every block of its sources, writes their
 * batches that end after the start offset into one new stream object, uploads it and commits it
 * with {@link ObjectManager#compactStreamObject}, which replaces the sources atomically.
 *
 * <p>Failure: every future completes. Merges run one after another; the first failure stops the
 * pass and fails its future. Merges committed before it stay committed (each is atomic on its own);
 * an object uploaded but not committed is collected when its prepared id expires.
 *
 * <p>Threading: thread-safe; the caller runs at most one pass per stream at a time (the stream's
 * owner schedules them), passes of different streams may overlap. Copying batches runs on {@code
 * executor}.
 */
public final class StreamObjectCompactor {

  private final ObjectStore store;
  private final ObjectManager objectManager;
  private final StreamObjectMergePlanner planner;
  private final CompactionSettings settings;
  private final ByteBufAllocator allocator;
  private final Executor executor;

  /**
   * @param maxObjectSizeBytes the largest merged object to build (see {@link
   *     StreamObjectMergePlanner})
   * @param executor runs the copying of batches into new objects (CPU work)
   */
  public StreamObjectCompactor(
      ObjectStore store,
      ObjectManager objectManager,
      long maxObjectSizeBytes,
      CompactionSettings settings,
      ByteBufAllocator allocator,
      Executor executor) {
    this.store = Objects.requireNonNull(store, "store");
    this.objectManager = Objects.requireNonNull(objectManager, "objectManager");
    this.planner = new StreamObjectMergePlanner(maxObjectSizeBytes);
    this.settings = Objects.requireNonNull(settings, "settings");
    this.allocator = Objects.requireNonNull(allocator, "allocator");
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  /**
   * Runs one pass over the stream's stream objects from {@code startOffset}.
   *
   * @param startOffset the stream's current start offset
   * @return the merges committed, in offset order (empty if there was nothing to do); fails with
   *     the store's or the object manager's error
   */
  public CompletableFuture<List<CompactStreamObjectRequest>> compact(
      long streamId, long startOffset) {
    return objectManager
        .getObjects(streamId, startOffset, -1, settings.maxSourceObjects())
        .thenCompose(
            objects -> {
              List<CompactStreamObjectRequest> done = new ArrayList<>();
              CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
              for (StreamObjectMerge merge : planner.plan(streamId, startOffset, objects)) {
                chain = chain.thenCompose(ignored -> merge(merge)).thenAccept(done::add);
              }
              return chain.thenApply(ignored -> List.copyOf(done));
            });
  }

  private CompletableFuture<CompactStreamObjectRequest> merge(StreamObjectMerge merge) {
    return objectManager
        .prepareObjects(1, settings.preparedObjectTtl())
        .thenCompose(
            objectId ->
                SourceReaders.open(store, settings.namespace(), merge.sources())
                    .thenCompose(sources -> readAll(sources))
                    .thenComposeAsync(batches -> write(merge, batches, objectId), executor))
        .thenCompose(
            request -> objectManager.compactStreamObject(request).thenApply(ignored -> request));
  }

  private static CompletableFuture<Map<SourceBlock, List<RecordBatch>>> readAll(
      SourceReaders sources) {
    List<SourceBlock> blocks = new ArrayList<>();
    sources.objects().forEach(object -> blocks.addAll(object.blocks()));
    return sources.read(blocks);
  }

  private CompletableFuture<CompactStreamObjectRequest> write(
      StreamObjectMerge merge, Map<SourceBlock, List<RecordBatch>> batches, long objectId) {
    ObjectWriter writer = new ObjectWriter(settings.blockSizeThresholdBytes(), allocator);
    try {
      List<SourceBlock> inOffsetOrder = new ArrayList<>(batches.keySet());
      inOffsetOrder.sort(Comparator.comparingLong(SourceBlock::startOffset));
      for (SourceBlock block : inOffsetOrder) {
        if (block.streamId() != merge.streamId()) {
          throw new IllegalStateException(
              "stream object " + block.objectId() + " holds stream " + block.streamId());
        }
        LiveBatches.copy(batches.remove(block), merge.startOffset(), writer, allocator);
      }
    } catch (RuntimeException e) {
      writer.close();
      throw e;
    } finally {
      SourceReaders.release(batches);
    }
    List<Long> sourceIds = merge.sources().stream().map(ObjectMetadata::objectId).toList();
    return writer
        .upload(store, settings.namespace(), objectId)
        .thenApply(
            written ->
                new CompactStreamObjectRequest(
                    StreamSetObjectCompactor.asStreamObject(written), sourceIds));
  }
}
