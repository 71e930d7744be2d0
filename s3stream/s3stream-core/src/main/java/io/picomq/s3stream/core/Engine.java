package io.picomq.s3stream.core;

import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.OrphanedStreams;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.s3stream.api.StreamManager;
import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.api.TakeoverFencedException;
import io.picomq.s3stream.api.TakeoverReport;
import io.picomq.s3stream.core.blockcache.BlockCache;
import io.picomq.s3stream.core.blockcache.BlockCacheConfig;
import io.picomq.s3stream.core.compaction.CompactionLimits;
import io.picomq.s3stream.core.compaction.CompactionScheduler;
import io.picomq.s3stream.core.compaction.CompactionSettings;
import io.picomq.s3stream.core.compaction.StreamObjectCompactor;
import io.picomq.s3stream.core.compaction.StreamSetObjectCompactor;
import io.picomq.s3stream.core.logcache.CacheBlock;
import io.picomq.s3stream.core.logcache.LogCache;
import io.picomq.s3stream.core.logcache.StreamSlice;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import io.picomq.s3stream.core.read.StorageReader;
import io.picomq.s3stream.core.read.StorageReaderConfig;
import io.picomq.s3stream.core.recovery.EarlierProcesses;
import io.picomq.s3stream.core.recovery.RecoveryReport;
import io.picomq.s3stream.core.recovery.WalRecovery;
import io.picomq.s3stream.core.stream.CommittedReader;
import io.picomq.s3stream.core.stream.Fetcher;
import io.picomq.s3stream.core.stream.OpenStream;
import io.picomq.s3stream.core.stream.WritePath;
import io.picomq.s3stream.core.upload.CommitRetry;
import io.picomq.s3stream.core.upload.ObjectUploader;
import io.picomq.s3stream.core.upload.UploadPipeline;
import io.picomq.s3stream.core.upload.UploadSettings;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.ClusterWals;
import io.picomq.s3stream.wal.WalFencedException;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's stream engine, assembled from its parts: the write path ({@link WritePath}) appends to
 * the WAL and the {@link LogCache}; sealed blocks flow through the {@link UploadPipeline} into
 * committed objects; {@link OpenStream}s read through the {@link Fetcher}; {@link WalRecovery} runs
 * at start; once started, a {@link CompactionScheduler} compacts this node's objects every {@code
 * compactionIntervalMillis} (unless 0), and {@link #takeOver} runs {@link WalRecovery} on a failed
 * node's WAL (opened through {@link ClusterWals}), one takeover at a time, sharing the uploader and
 * committer.
 *
 * <p>Lifecycle: new → {@link #start()} (recovery) → started → {@link #shutdown()} → shut down. A
 * failed start leaves the engine failed; only shutdown is then accepted.
 *
 * <p>Threading: any thread may call any method; the parts document their own rules. The engine's
 * own mutable state is the map of open streams (concurrent), the lifecycle phase (atomic) and the
 * tail of the takeover queue (under its lock).
 */
public final class Engine implements StreamEngine {

  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

  private enum Phase {
    NEW,
    STARTING,
    STARTED,
    FAILED,
    SHUTTING_DOWN,
    SHUT_DOWN
  }

  private final EngineConfig config;
  private final WriteAheadLog wal;
  private final StreamManager streamManager;
  private final Scheduler scheduler;
  private final EngineMetrics metrics;
  private final LogCache cache;
  private final UploadPipeline pipeline;
  private final WritePath writePath;
  private final Fetcher fetcher;
  private final BlockCache blockCache;
  private final WalRecovery recovery;
  private final ObjectUploader uploader;
  private final CommitRetry committer;
  // Null when this engine cannot open other nodes' WALs (then takeOver is unsupported).
  private final ClusterWals clusterWals;
  private final long uploadThresholdBytes;
  private final ObjectStore dataStore;
  private final ObjectNamespace namespace;
  private final StorageReader storageReader;
  // Null when compaction is off.
  private final CompactionScheduler compaction;
  private final Map<Long, OpenStream> streams = new ConcurrentHashMap<>();
  private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.NEW);
  private final CompletableFuture<Void> shutDown = new CompletableFuture<>();
  private final Object takeoverLock = new Object();

  // Completes when the last takeover queued is over; guarded by takeoverLock.
  private CompletableFuture<Void> lastTakeover = CompletableFuture.completedFuture(null);

  // Set by start, read by shutdown.
  private volatile Scheduler.Cancellable intervalTimer = () -> {};

  /** An engine that cannot take over other nodes' WALs. */
  public Engine(
      EngineConfig config,
      WriteAheadLog wal,
      ObjectStore dataStore,
      StreamManager streamManager,
      ObjectManager objectManager,
      EngineResources resources) {
    this(config, wal, dataStore, streamManager, objectManager, resources, null);
  }

  /**
   * @param wal the node's WAL, not yet started; the engine starts, recovers, resets and shuts it
   *     down
   * @param dataStore where data objects go and are read from (through the block cache); not closed
   *     by the engine
   * @param clusterWals opens other nodes' WALs on the store of {@code wal}, for {@link #takeOver};
   *     null if the engine cannot
   */
  public Engine(
      EngineConfig config,
      WriteAheadLog wal,
      ObjectStore dataStore,
      StreamManager streamManager,
      ObjectManager objectManager,
      EngineResources resources,
      ClusterWals clusterWals) {
    this.config = config;
    this.clusterWals = clusterWals;
    this.wal = wal;
    this.uploadThresholdBytes = uploadThreshold(config, wal);
    this.streamManager = streamManager;
    this.dataStore = dataStore;
    this.scheduler = resources.scheduler();
    this.metrics = new EngineMetrics(resources.registry());
    this.cache = new LogCache(config.walCacheSizeBytes(), scheduler.nanoTime());
    UploadSettings settings =
        new UploadSettings(
            new ObjectNamespace(config.namespace()),
            config.streamSplitSizeBytes(),
            config.objectBlockSizeBytes(),
            UploadSettings.DEFAULT_PREPARED_OBJECT_TTL);
    this.namespace = settings.namespace();
    this.uploader =
        new ObjectUploader(
            dataStore, objectManager, settings, resources.allocator(), metrics, scheduler);
    this.committer = new CommitRetry(objectManager, scheduler, metrics);
    this.pipeline =
        new UploadPipeline(
            uploader, committer, wal, resources.executor(), metrics, new PipelineListener());
    this.writePath =
        new WritePath(
            wal,
            cache,
            pipeline,
            scheduler,
            resources.allocator(),
            metrics,
            uploadThresholdBytes,
            TimeUnit.MILLISECONDS.toNanos(config.appendWaitMillis()),
            config.maxWaitingAppends());
    this.blockCache =
        new BlockCache(
            dataStore,
            blockCacheConfig(config.blockCacheSizeBytes()),
            resources.clock(),
            resources.allocator(),
            resources.registry());
    this.storageReader =
        new StorageReader(
            objectManager,
            settings.namespace(),
            blockCache,
            StorageReaderConfig.DEFAULT,
            resources.executor());
    CommittedReader committedReader =
        (streamId, startOffset, endOffset, maxBytes, fastRead) -> {
          try {
            return storageReader
                .read(streamId, startOffset, endOffset, maxBytes, fastRead)
                .thenApply(batches -> batches);
          } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
          }
        };
    this.fetcher = new Fetcher(cache, committedReader, metrics);
    this.recovery =
        new WalRecovery(
            wal,
            new EarlierProcesses(streamManager),
            uploader,
            committer,
            metrics,
            uploadThresholdBytes);
    this.compaction =
        config.compactionIntervalMillis() > 0
            ? compaction(config, settings.namespace(), dataStore, objectManager, resources)
            : null;
    metrics.gauge("s3stream.logcache.bytes", "bytes held by the log cache", cache::sizeBytes);
    metrics.gauge(
        "s3stream.logcache.blocks", "blocks in the log cache", () -> cache.blocks().size());
    metrics.gauge("s3stream.streams.open", "streams open on this engine", streams::size);
  }

  @Override
  public CompletableFuture<Void> start() {
    if (!phase.compareAndSet(Phase.NEW, Phase.STARTING)) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("start() may be called once, on a new engine: " + phase));
    }
    return recovery
        .run()
        .handle(
            (report, error) -> {
              if (error != null) {
                phase.set(Phase.FAILED);
                LOG.error("engine of node {} failed to start", config.nodeId(), error);
                throw asCompletion(error);
              }
              started(report);
              return null;
            });
  }

  private void started(RecoveryReport report) {
    LOG.info("engine of node {} epoch {} started: {}", config.nodeId(), config.nodeEpoch(), report);
    if (!phase.compareAndSet(Phase.STARTING, Phase.STARTED)) {
      return; // shut down while starting
    }
    if (config.walUploadIntervalMillis() > 0) {
      scheduleIntervalSeal(TimeUnit.MILLISECONDS.toNanos(config.walUploadIntervalMillis()));
    }
    if (compaction != null) {
      compaction.start();
    }
  }

  @Override
  public CompletableFuture<Stream> openStream(long streamId) {
    if (phase.get() != Phase.STARTED) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("the engine is not started: " + phase.get()));
    }
    if (writePath.isFenced()) {
      return CompletableFuture.failedFuture(
          new MetadataRejectedException(
              MetadataRejectedException.Reason.NODE_FENCED, "this engine was fenced"));
    }
    OpenStream existing = streams.get(streamId);
    if (existing != null) {
      if (!existing.isClosing()) {
        return CompletableFuture.completedFuture(existing);
      }
      // Reopen only once the old instance's data is committed and the stream closed.
      return existing
          .closedFuture()
          .handle((ignored, error) -> null)
          .thenCompose(ignored -> openStream(streamId));
    }
    return streamManager
        .openStream(streamId)
        .thenApply(
            opened -> {
              OpenStream stream =
                  new OpenStream(opened, writePath, fetcher, streamManager, this::streamClosed);
              OpenStream raced = streams.putIfAbsent(streamId, stream);
              return raced != null ? raced : stream;
            });
  }

  /**
   * Deletes the objects' keys from the data store in one call (the store batches it) and drops
   * their pages from the block cache. Works in any phase but shut down: the lease holder's
   * maintenance may run before this node serves streams. Only the object's own key goes, whatever
   * its attributes say about deep delete: see {@link StreamEngine#deleteObjects}.
   */
  @Override
  public CompletableFuture<Void> deleteObjects(List<Long> objectIds) {
    if (phase.get() == Phase.SHUT_DOWN) {
      return CompletableFuture.failedFuture(new IllegalStateException("the engine is shut down"));
    }
    if (objectIds.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<String> keys;
    try {
      keys = objectIds.stream().map(namespace::key).toList();
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(e);
    }
    try {
      return dataStore
          .delete(keys)
          // Invalidate after the delete: a page loaded meanwhile would otherwise outlive the bytes.
          .thenRun(() -> keys.forEach(blockCache::invalidate));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The configured upload threshold, lowered to half the WAL's capacity where the WAL holds only so
   * much (a ring of tables): the WAL is trimmed only after an upload, so a threshold it can never
   * reach would leave appends waiting for good.
   */
  private static long uploadThreshold(EngineConfig config, WriteAheadLog wal) {
    long configured = config.effectiveUploadThresholdBytes();
    long bound = Math.max(1, wal.capacityBytes() / 2);
    if (configured > bound) {
      LOG.info(
          "uploading at {} bytes, not {}: half of what the WAL holds before it must be trimmed",
          bound,
          configured);
      return bound;
    }
    return configured;
  }

  /**
   * Queues the takeover behind any other one (a recovery holds what the WAL returned in memory, so
   * one at a time bounds that). It first asks whether the node has anything open at all, so a
   * repeated takeover, or one of a node that shut down cleanly, touches no storage.
   */
  @Override
  public CompletableFuture<TakeoverReport> takeOver(int nodeId, OrphanedStreams orphans) {
    Objects.requireNonNull(orphans, "orphans");
    if (nodeId == config.nodeId()) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("node " + nodeId + " cannot take over its own WAL"));
    }
    if (clusterWals == null) {
      return CompletableFuture.failedFuture(
          new UnsupportedOperationException("this engine's WAL cannot open other nodes' WALs"));
    }
    if (phase.get() != Phase.STARTED) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("the engine is not started: " + phase.get()));
    }
    synchronized (takeoverLock) {
      CompletableFuture<TakeoverReport> report =
          lastTakeover.thenCompose(ignored -> runTakeover(nodeId, orphans));
      lastTakeover = report.handle((ignored, error) -> null);
      return report;
    }
  }

  private CompletableFuture<TakeoverReport> runTakeover(int nodeId, OrphanedStreams orphans) {
    // Checked again here, not only when queued: shutdown waits for takeovers queued before it
    // began, and those that start after it must not touch the stores the caller is about to close.
    if (phase.get() != Phase.STARTED) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("the engine is not started: " + phase.get()));
    }
    return orphans
        .streams()
        .thenCompose(
            open -> {
              if (open.isEmpty()) {
                LOG.info("takeover of node {}: nothing open, nothing to do", nodeId);
                return CompletableFuture.completedFuture(TakeoverReport.nothingOpen(nodeId));
              }
              return clusterWals
                  .epochAbove(nodeId)
                  .thenCompose(epoch -> recoverWalIfStillOrphaned(nodeId, epoch, orphans));
            });
  }

  /**
   * Asks again after choosing the epoch: a process of the node that came back registers before it
   * writes its fence marker, so if the listing saw that marker (and the epoch chosen is above the
   * new process's), this answer shows the takeover ended, and the takeover stops instead of fencing
   * the node's new process. A process that comes back later starts above the epoch chosen.
   */
  private CompletableFuture<TakeoverReport> recoverWalIfStillOrphaned(
      int nodeId, long epoch, OrphanedStreams orphans) {
    return orphans
        .streams()
        .thenCompose(
            open -> {
              if (open.isEmpty()) {
                LOG.info("takeover of node {}: ended before its WAL was fenced", nodeId);
                return CompletableFuture.completedFuture(TakeoverReport.nothingOpen(nodeId));
              }
              return recoverWalOf(nodeId, epoch, orphans);
            });
  }

  /**
   * A takeover's view of the orphans once it has fenced their WAL, where the streams were open a
   * moment before: an empty answer now means someone closed them meanwhile (the node's new process,
   * or another taker), and whoever did has yet to read the WAL. So the takeover stops there, as
   * when the host refuses outright, instead of resetting what that process has not read.
   */
  private record StillOrphaned(int nodeId, OrphanedStreams orphans) implements OrphanedStreams {
    @Override
    public CompletableFuture<List<StreamMetadata>> streams() {
      return orphans
          .streams()
          .thenApply(
              open -> {
                if (open.isEmpty()) {
                  throw new MetadataRejectedException(
                      MetadataRejectedException.Reason.FENCED,
                      "node " + nodeId + "'s streams were closed by another process meanwhile");
                }
                return open;
              });
    }

    @Override
    public CompletableFuture<Void> closeStream(long streamId, long epoch) {
      return orphans.closeStream(streamId, epoch);
    }
  }

  /** Fences, recovers and resets the node's WAL under {@code epoch}, then lets it go. */
  private CompletableFuture<TakeoverReport> recoverWalOf(
      int nodeId, long epoch, OrphanedStreams orphans) {
    LOG.info("node {} takes over the WAL of node {} at epoch {}", config.nodeId(), nodeId, epoch);
    WriteAheadLog borrowed = clusterWals.open(nodeId, epoch);
    WalRecovery takeover =
        new WalRecovery(
            borrowed,
            new StillOrphaned(nodeId, orphans),
            uploader,
            committer,
            metrics,
            uploadThresholdBytes);
    return takeover
        .run()
        .handle(
            (report, error) -> {
              if (error == null) {
                return borrowed
                    .shutdownGracefully()
                    // The WAL was reset and holds nothing: how its writer stops does not matter.
                    .handle((ignored, shutdownError) -> report);
              }
              borrowed.close();
              Throwable cause = Causes.unwrap(error);
              if (cause instanceof MetadataRejectedException) {
                // The takeover ended (see OrphanedStreams#streams): expected, not a fault.
                LOG.info(
                    "takeover of node {}'s WAL at epoch {} stopped: {}",
                    nodeId,
                    epoch,
                    cause.getMessage());
              } else {
                LOG.warn("takeover of node {}'s WAL at epoch {} failed", nodeId, epoch, cause);
              }
              throw asCompletion(
                  cause instanceof WalFencedException
                      ? new TakeoverFencedException(nodeId, epoch, cause)
                      : cause);
            })
        .thenCompose(done -> done)
        .thenApply(
            report -> {
              LOG.info("takeover of node {}'s WAL at epoch {} done: {}", nodeId, epoch, report);
              return new TakeoverReport(
                  nodeId,
                  epoch,
                  report.walRecords(),
                  report.uploadedRecords(),
                  report.droppedRecords(),
                  report.uploadedBytes(),
                  report.uploads(),
                  report.closedStreams());
            });
  }

  @Override
  public CompletableFuture<Void> shutdown() {
    Phase was = phase.getAndUpdate(p -> p == Phase.SHUT_DOWN ? p : Phase.SHUTTING_DOWN);
    if (was == Phase.SHUTTING_DOWN || was == Phase.SHUT_DOWN) {
      return shutDown.copy();
    }
    intervalTimer.cancel();
    // A compaction in progress finishes (or fails) before the engine reports shut down: its
    // uploads and commit use the data store and the catalog, which the caller closes after us.
    // Likewise a takeover in progress: queued ones after it fail at once (the phase moved).
    CompletableFuture<Void> takeoversOver;
    synchronized (takeoverLock) {
      takeoversOver = lastTakeover;
    }
    CompletableFuture<Void> backgroundStopped =
        (compaction == null ? CompletableFuture.<Void>completedFuture(null) : compaction.stop())
            .thenCombine(takeoversOver, (ignored, alsoIgnored) -> null);
    if (was == Phase.NEW || was == Phase.FAILED || was == Phase.STARTING) {
      // Nothing was appended: there is nothing to flush.
      wal.close();
      blockCache.close();
      phase.set(Phase.SHUT_DOWN);
      shutDown.complete(null);
      return shutDown.copy();
    }
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (OpenStream stream : streams.values()) {
      closing.add(stream.close().exceptionally(error -> null));
    }
    CompletableFuture.allOf(closing.toArray(CompletableFuture<?>[]::new))
        .thenCompose(ignored -> writePath.shutdown())
        .thenCompose(ignored -> pipeline.lastTrim())
        .handle((ignored, error) -> error)
        .thenCompose(flushError -> backgroundStopped.thenApply(ignored -> flushError))
        .thenCompose(
            flushError ->
                wal.shutdownGracefully()
                    .handle(
                        (ignored, walError) -> {
                          Throwable error = flushError != null ? flushError : walError;
                          if (walError != null) {
                            wal.close();
                          }
                          blockCache.close();
                          cache.releaseAll(scheduler.nanoTime());
                          phase.set(Phase.SHUT_DOWN);
                          if (error != null) {
                            LOG.warn("engine shut down without flushing everything", error);
                            shutDown.completeExceptionally(Causes.unwrap(error));
                          } else {
                            shutDown.complete(null);
                          }
                          return null;
                        }));
    return shutDown.copy();
  }

  /** The engine's meters. */
  public EngineMetrics metrics() {
    return metrics;
  }

  /** The log cache (its accounting is what admission control honours). */
  public LogCache logCache() {
    return cache;
  }

  /** Pages of the block cache: 1 MiB, or the whole cache if it is smaller. */
  private static BlockCacheConfig blockCacheConfig(long capacityBytes) {
    int pageSize = (int) Math.min(BlockCacheConfig.DEFAULT_PAGE_SIZE_BYTES, capacityBytes);
    return BlockCacheConfig.builder().capacityBytes(capacityBytes).pageSizeBytes(pageSize).build();
  }

  private CompactionScheduler compaction(
      EngineConfig config,
      ObjectNamespace namespace,
      ObjectStore dataStore,
      ObjectManager objectManager,
      EngineResources resources) {
    CompactionSettings settings =
        new CompactionSettings(
            namespace,
            config.objectBlockSizeBytes(),
            UploadSettings.DEFAULT_PREPARED_OBJECT_TTL,
            CompactionSettings.defaults().maxSourceObjects());
    CompactionLimits upstream = CompactionLimits.upstreamDefaults();
    CompactionLimits limits =
        new CompactionLimits(
            config.compactionCacheSizeBytes(),
            config.streamSplitSizeBytes(),
            upstream.maxStreamNumInStreamSet(),
            upstream.maxStreamObjectNum());
    return new CompactionScheduler(
        new StreamSetObjectCompactor(
            dataStore,
            objectManager,
            limits,
            settings,
            resources.allocator(),
            resources.executor()),
        new StreamObjectCompactor(
            dataStore,
            objectManager,
            config.compactionMaxObjectSizeBytes(),
            settings,
            resources.allocator(),
            resources.executor()),
        scheduler,
        TimeUnit.MILLISECONDS.toNanos(config.compactionIntervalMillis()),
        this::ownedStreams,
        () -> phase.get() != Phase.STARTED || writePath.isFenced(),
        this::objectsReplaced,
        metrics);
  }

  /** The start offset of each stream this engine owns now: open and not closing. */
  private Map<Long, Long> ownedStreams() {
    Map<Long, Long> owned = new HashMap<>();
    for (OpenStream stream : streams.values()) {
      if (!stream.isClosing()) {
        owned.put(stream.streamId(), stream.startOffset());
      }
    }
    return owned;
  }

  /**
   * Drops what the engine keeps of objects a compaction replaced: their opened readers and their
   * pages. Readers that listed them before the commit may still read them (the lease holder deletes
   * them later), which reopens and reloads them harmlessly: objects never change.
   */
  private void objectsReplaced(List<Long> objectIds) {
    storageReader.forgetObjects(objectIds);
    for (long objectId : objectIds) {
      blockCache.invalidate(namespace.key(objectId));
    }
  }

  private void streamClosed(OpenStream stream) {
    streams.remove(stream.streamId(), stream);
  }

  private void scheduleIntervalSeal(long intervalNanos) {
    intervalTimer =
        scheduler.schedule(
            () -> {
              if (phase.get() != Phase.STARTED) {
                return;
              }
              writePath.sealIfOlderThan(intervalNanos / 2);
              scheduleIntervalSeal(intervalNanos);
            },
            intervalNanos);
  }

  private static CompletionException asCompletion(Throwable error) {
    Throwable cause = Causes.unwrap(error);
    return cause instanceof CompletionException c ? c : new CompletionException(cause);
  }

  /** Moves committed offsets, frees the log cache, and stops the write path on failure. */
  private final class PipelineListener implements UploadPipeline.Listener {
    @Override
    public void onCommitted(CacheBlock block) {
      for (StreamSlice slice : block.slices()) {
        OpenStream stream = streams.get(slice.streamId());
        long end = slice.endOffset();
        if (stream != null && stream.epoch() == slice.epoch() && end >= 0) {
          stream.committed(end);
        }
      }
      cache.markCommitted(block);
      // Free room for the next block now, off the write path's lock, so that appends rarely have
      // to evict (and release thousands of buffers) while holding it. Newer committed blocks stay
      // for tail readers.
      cache.evictCommitted(cache.capacityBytes() - uploadThresholdBytes);
      writePath.retryWaiting();
    }

    @Override
    public void onFailed(Throwable error) {
      Throwable cause = Causes.unwrap(error);
      // The WAL's fence check found a newer epoch: this node is fenced, not failed.
      boolean walFenced = cause instanceof WalFencedException;
      if (walFenced
          || error instanceof MetadataRejectedException rejected
              && (rejected.reason() == MetadataRejectedException.Reason.FENCED
                  || rejected.reason() == MetadataRejectedException.Reason.NODE_FENCED)) {
        LOG.warn(
            "node {} epoch {} is fenced: {}",
            config.nodeId(),
            config.nodeEpoch(),
            error.toString());
        writePath.fence();
        wal.fence("the metadata plane fenced this node: " + error.getMessage());
      } else {
        writePath.fail(error);
      }
    }
  }
}
