package io.picomq.s3stream.core.compaction;

import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import io.picomq.s3stream.time.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs compaction on the engine's timer: every interval, one run compacts this node's stream-set
 * objects ({@link StreamSetObjectCompactor}) and then merges the stream objects of every stream the
 * engine owns ({@link StreamObjectCompactor}), one stream after another.
 *
 * <p>Ownership: a stream is owned while it is open on this engine and not closing. Streams that are
 * not owned are excluded from the stream-set object compaction (the planner holds out every object
 * holding one of them), decided once per run when the source objects are open; their start offset
 * is taken as 0 there, which keeps all their data should the planner ask. Owned streams are
 * compacted from the start offset they had at that moment: a trim meanwhile only leaves a little
 * dead data behind for the next run.
 *
 * <p>Timing: the next run is scheduled one interval after the previous one finished, so runs never
 * overlap, and a run longer than the interval delays the next rather than queueing them. Every
 * finished run is counted in {@code s3stream.compaction.runs}; one with any failed step also in
 * {@code s3stream.compaction.failures}; failures are logged and simply tried again next time: every
 * commit is atomic, so a failure leaves the catalog as it was before that step. A tick while the
 * engine is paused (fenced) runs and counts nothing.
 *
 * <p>Lifecycle: {@link #start()} schedules the first run; {@link #stop()} cancels the timer, lets a
 * stream-set object compaction in progress finish (it cannot be interrupted between its upload and
 * its commit without leaving garbage), skips the stream merges not yet begun, and completes when
 * the run is over. Nothing runs in the constructor.
 *
 * <p>Threading: runs start on the scheduler's thread and continue on whichever thread completes the
 * compactors' futures; {@code lock} guards the timer, the current run and the stopped flag.
 */
public final class CompactionScheduler {

  private static final Logger LOG = LoggerFactory.getLogger(CompactionScheduler.class);

  private final StreamSetObjectCompactor streamSets;
  private final StreamObjectCompactor streamObjects;
  private final Scheduler scheduler;
  private final long intervalNanos;
  private final Supplier<Map<Long, Long>> owned;
  private final BooleanSupplier paused;
  private final Consumer<List<Long>> replaced;
  private final EngineMetrics metrics;
  private final AtomicBoolean started = new AtomicBoolean();
  private final Object lock = new Object();

  // Guarded by lock.
  private boolean stopped;
  private Scheduler.Cancellable timer = () -> {};
  private CompletableFuture<Void> current = CompletableFuture.completedFuture(null);

  // Read by the merges of a run to stop early once stop() was called.
  private volatile boolean stopping;

  /**
   * @param intervalNanos time between the end of one run and the start of the next, {@code > 0}
   * @param owned the start offsets of the streams this engine owns now (open and not closing),
   *     snapshot per call
   * @param paused when true at a tick, the run is skipped (a fenced engine compacts nothing)
   * @param replaced told the ids of objects a committed compaction replaced, so caches of them can
   *     be dropped
   */
  public CompactionScheduler(
      StreamSetObjectCompactor streamSets,
      StreamObjectCompactor streamObjects,
      Scheduler scheduler,
      long intervalNanos,
      Supplier<Map<Long, Long>> owned,
      BooleanSupplier paused,
      Consumer<List<Long>> replaced,
      EngineMetrics metrics) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("intervalNanos must be > 0: " + intervalNanos);
    }
    this.streamSets = Objects.requireNonNull(streamSets, "streamSets");
    this.streamObjects = Objects.requireNonNull(streamObjects, "streamObjects");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.intervalNanos = intervalNanos;
    this.owned = Objects.requireNonNull(owned, "owned");
    this.paused = Objects.requireNonNull(paused, "paused");
    this.replaced = Objects.requireNonNull(replaced, "replaced");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  /** Schedules the first run one interval from now; once. */
  public void start() {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("the compaction scheduler was already started");
    }
    scheduleNext();
  }

  /**
   * Stops scheduling runs; never fails.
   *
   * @return completes when the run in progress, if any, is over
   */
  public CompletableFuture<Void> stop() {
    synchronized (lock) {
      stopped = true;
      stopping = true;
      timer.cancel();
      return current.copy();
    }
  }

  private void scheduleNext() {
    synchronized (lock) {
      if (!stopped) {
        timer = scheduler.schedule(this::tick, intervalNanos);
      }
    }
  }

  private void tick() {
    CompletableFuture<Void> run = new CompletableFuture<>();
    synchronized (lock) {
      if (stopped) {
        return;
      }
      current = run;
    }
    if (paused.getAsBoolean()) {
      run.complete(null);
      scheduleNext();
      return;
    }
    CompletableFuture<Boolean> done;
    try {
      done = runOnce();
    } catch (RuntimeException e) {
      done = CompletableFuture.failedFuture(e);
    }
    done.whenComplete(
        (succeeded, error) -> {
          metrics.compactionRuns.increment();
          if (error != null || !succeeded) {
            metrics.compactionFailures.increment();
          }
          if (error != null) {
            LOG.warn("compaction run failed; retrying next interval", error);
          }
          run.complete(null);
          scheduleNext();
        });
  }

  /** One run; completes with whether every step succeeded (failed steps are logged here). */
  private CompletableFuture<Boolean> runOnce() {
    Run run = new Run();
    return streamSets
        .compact(run::startOffset, run::excluded)
        .handle(
            (outcome, error) -> {
              if (error != null) {
                LOG.warn("stream-set object compaction failed", error);
                return false;
              }
              if (outcome instanceof CompactionOutcome.Compacted compacted) {
                CommitStreamSetObjectRequest commit = compacted.commit();
                metrics.compactionObjectsIn.increment(commit.compactedObjectIds().size());
                metrics.compactionObjectsOut.increment(
                    commit.streamObjects().size() + (commit.objectId() >= 0 ? 1 : 0));
                replaced.accept(commit.compactedObjectIds());
              }
              return true;
            })
        .thenCompose(this::mergeStreamObjects);
  }

  /** Merges the stream objects of each owned stream in turn; a failed stream does not stop them. */
  private CompletableFuture<Boolean> mergeStreamObjects(boolean succeededSoFar) {
    CompletableFuture<Boolean> chain = CompletableFuture.completedFuture(succeededSoFar);
    for (Map.Entry<Long, Long> stream : new TreeMap<>(owned.get()).entrySet()) {
      long streamId = stream.getKey();
      long startOffset = stream.getValue();
      chain =
          chain.thenCompose(
              ok -> {
                if (stopping) {
                  return CompletableFuture.completedFuture(ok);
                }
                return mergeOne(streamId, startOffset).thenApply(merged -> ok && merged);
              });
    }
    return chain;
  }

  private CompletableFuture<Boolean> mergeOne(long streamId, long startOffset) {
    CompletableFuture<List<CompactStreamObjectRequest>> merges;
    try {
      merges = streamObjects.compact(streamId, startOffset);
    } catch (RuntimeException e) {
      merges = CompletableFuture.failedFuture(e);
    }
    return merges.handle(
        (done, error) -> {
          if (error != null) {
            LOG.warn("merging the stream objects of stream {} failed", streamId, error);
            return false;
          }
          List<Long> sources = new ArrayList<>();
          for (CompactStreamObjectRequest merge : done) {
            sources.addAll(merge.sourceObjectIds());
          }
          metrics.compactionObjectsIn.increment(sources.size());
          metrics.compactionObjectsOut.increment(done.size());
          if (!sources.isEmpty()) {
            replaced.accept(sources);
          }
          return true;
        });
  }

  /**
   * The owned streams of one stream-set object compaction, snapshot the first time the compactor
   * asks (once the source objects are open), so exclusion and start offsets agree.
   */
  private final class Run {
    private Map<Long, Long> snapshot;

    private synchronized Map<Long, Long> owned() {
      if (snapshot == null) {
        snapshot = Map.copyOf(owned.get());
      }
      return snapshot;
    }

    boolean excluded(long streamId) {
      return !owned().containsKey(streamId);
    }

    OptionalLong startOffset(long streamId) {
      Long start = owned().get(streamId);
      // Not owned: held out by the planner anyway; 0 keeps every byte should it be asked.
      return OptionalLong.of(start == null ? 0 : start);
    }
  }
}
