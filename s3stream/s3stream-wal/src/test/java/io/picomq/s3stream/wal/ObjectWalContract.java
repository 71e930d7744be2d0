package io.picomq.s3stream.wal;

import io.picomq.s3stream.objectstore.FaultInjectingObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.time.Scheduler;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The contract for {@link ObjectWal} on a real object store. Each test gets a fresh node (its own
 * cluster id, so stores shared between tests stay apart); every instance sees the store through its
 * own {@link CrashableObjectStore}, above one {@link FaultInjectingObjectStore} that stalls.
 */
abstract class ObjectWalContract extends WriteAheadLogContract {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  private final Map<WriteAheadLog, CrashableObjectStore> views = new IdentityHashMap<>();
  private ObjectStore realStore;
  private FaultInjectingObjectStore faults;
  private ExecutorService owners;
  private ScheduledExecutorService delays;
  private String clusterId;
  private long viewSeed;

  /** The real store for one test. */
  protected abstract ObjectStore openStore() throws Exception;

  /** Most microseconds a PUT is held back before it is sent, to mix up landing order. */
  protected int maxPutDelayMicros() {
    return 2000;
  }

  @Override
  protected void createStorage() throws Exception {
    realStore = openStore();
    faults = new FaultInjectingObjectStore(realStore);
    owners =
        Executors.newFixedThreadPool(
            2, Thread.ofPlatform().daemon().name("wal-owner-", 0).factory());
    delays =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("put-delay").factory());
    clusterId = "contract-" + CLUSTERS.incrementAndGet();
  }

  @Override
  protected void destroyStorage() throws Exception {
    faults.resume();
    views.clear();
    owners.shutdown();
    delays.shutdown();
    delays.awaitTermination(5, TimeUnit.SECONDS);
    realStore.close();
  }

  @Override
  protected WriteAheadLog newWal(long epoch, WalConfig config) {
    CrashableObjectStore view =
        new CrashableObjectStore(faults, delays, viewSeed++, maxPutDelayMicros());
    ObjectWal wal =
        new ObjectWal(view, WalNode.of(clusterId, 7, epoch), config, Scheduler.system(), owners);
    views.put(wal, view);
    return wal;
  }

  @Override
  protected void stallStorage() {
    faults.pause();
  }

  @Override
  protected void resumeStorage() {
    faults.resume();
  }

  @Override
  protected void crash(WriteAheadLog wal, Random random) {
    views.get(wal).crash(random);
    wal.close();
    // Runs after the close on the WAL's owner: from here on it acknowledges nothing.
    wal.shutdownGracefully().handle((ignored, error) -> null).join();
  }
}
