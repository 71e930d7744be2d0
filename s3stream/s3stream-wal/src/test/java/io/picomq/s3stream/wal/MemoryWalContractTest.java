package io.picomq.s3stream.wal;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Random;

/** The contract for {@link MemoryWal}: storage is a {@link MemoryWalVolume}. */
class MemoryWalContractTest extends WriteAheadLogContract {

  private MemoryWalVolume volume;
  private final Map<WriteAheadLog, ControlledExecutor> persisters = new IdentityHashMap<>();
  private boolean stalled;

  @Override
  protected void createStorage() {
    volume = new MemoryWalVolume();
  }

  @Override
  protected void destroyStorage() {
    persisters.values().forEach(ControlledExecutor::close);
    persisters.clear();
  }

  @Override
  protected WriteAheadLog newWal(long epoch, WalConfig config) {
    ControlledExecutor persister = new ControlledExecutor("memory-wal-" + epoch);
    if (stalled) {
      persister.hold();
    }
    MemoryWal wal = new MemoryWal(volume, epoch, config.maxUnflushedBytes(), persister);
    persisters.put(wal, persister);
    return wal;
  }

  @Override
  protected void stallStorage() {
    stalled = true;
    persisters.values().forEach(ControlledExecutor::hold);
  }

  @Override
  protected void resumeStorage() {
    stalled = false;
    persisters.values().forEach(ControlledExecutor::release);
  }

  @Override
  protected void crash(WriteAheadLog wal, Random random) {
    persisters.get(wal).crash();
    wal.close();
  }

  @Override
  protected int crashRounds() {
    return 60;
  }
}
