package io.picomq.s3stream.core.testing;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.PooledByteBufAllocator;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.StreamManager;
import io.picomq.s3stream.core.Engine;
import io.picomq.s3stream.core.EngineResources;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.ClusterWals;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One engine instance in a test, with the threads and meters it was given. {@link #shutdown()}
 * stops it cleanly; {@link #abandon()} drops it like a crashed process (no flush, no close), then
 * stops its threads so a long randomized run does not pile them up.
 */
public final class TestEngine {

  private static final AtomicInteger INSTANCES = new AtomicInteger();

  public final Engine engine;
  public final WriteAheadLog wal;
  public final SimpleMeterRegistry registry;
  private final ExecutorService executor;
  private final StoppableScheduler scheduler;

  private TestEngine(
      Engine engine,
      WriteAheadLog wal,
      SimpleMeterRegistry registry,
      ExecutorService executor,
      StoppableScheduler scheduler) {
    this.engine = engine;
    this.wal = wal;
    this.registry = registry;
    this.executor = executor;
    this.scheduler = scheduler;
  }

  /** A WAL over the given executor (the one the engine's tasks run on too). */
  @FunctionalInterface
  public interface WalFactory {
    WriteAheadLog open(ExecutorService executor, Scheduler scheduler);
  }

  /** Other nodes' WALs on the store of the engine's own, over the engine's executor. */
  @FunctionalInterface
  public interface ClusterWalsFactory {
    ClusterWals open(ExecutorService executor, Scheduler scheduler);
  }

  /** Builds an engine (not started) over {@code dataStore} and the WAL the factory opens. */
  public static TestEngine build(
      EngineConfig config,
      StreamManager streams,
      ObjectManager objects,
      ObjectStore dataStore,
      WalFactory walFactory) {
    return build(config, streams, objects, dataStore, walFactory, null);
  }

  /**
   * As {@link #build(EngineConfig, StreamManager, ObjectManager, ObjectStore, WalFactory)}, able to
   * take over other nodes' WALs when {@code clusterWals} is not null.
   */
  public static TestEngine build(
      EngineConfig config,
      StreamManager streams,
      ObjectManager objects,
      ObjectStore dataStore,
      WalFactory walFactory,
      ClusterWalsFactory clusterWals) {
    int instance = INSTANCES.incrementAndGet();
    ExecutorService executor = Executors.newFixedThreadPool(4, threads("engine-" + instance));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    StoppableScheduler scheduler = new StoppableScheduler(Scheduler.system());
    WriteAheadLog wal = walFactory.open(executor, scheduler);
    Engine engine =
        new Engine(
            config,
            wal,
            dataStore,
            streams,
            objects,
            new EngineResources(
                executor, scheduler, Clock.systemUTC(), PooledByteBufAllocator.DEFAULT, registry),
            clusterWals == null ? null : clusterWals.open(executor, scheduler));
    return new TestEngine(engine, wal, registry, executor, scheduler);
  }

  /** Shuts the engine down cleanly, then its threads. */
  public void shutdown() {
    try {
      engine.shutdown().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("engine shutdown failed", e);
    } finally {
      executor.shutdown();
    }
  }

  /**
   * Abandons the engine as a crash would: nothing is flushed or closed. Call after the storage
   * decorators started refusing everything; the threads are then stopped so nothing lingers.
   */
  public void abandon() {
    scheduler.stop();
    executor.shutdownNow();
    // A crashed process's memory is gone; here it is the log cache's buffers, which would
    // otherwise be collected unreleased and reported as leaks.
    engine.logCache().releaseAll(System.nanoTime());
  }

  /** The system scheduler, until stopped: then timers of an abandoned engine never fire. */
  private static final class StoppableScheduler implements Scheduler {
    private final Scheduler delegate;
    private volatile boolean stopped;

    StoppableScheduler(Scheduler delegate) {
      this.delegate = delegate;
    }

    void stop() {
      stopped = true;
    }

    @Override
    public long nanoTime() {
      return delegate.nanoTime();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
      return delegate.schedule(
          () -> {
            if (!stopped) {
              task.run();
            }
          },
          delayNanos);
    }
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger next = new AtomicInteger();
    return task -> {
      Thread t = new Thread(task, prefix + "-" + next.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
