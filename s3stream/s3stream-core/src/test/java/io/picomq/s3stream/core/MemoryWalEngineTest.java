package io.picomq.s3stream.core;

import io.picomq.s3stream.core.testing.EngineStorage;

/** The engine contract on the memory WAL and the memory object store. */
class MemoryWalEngineTest extends EngineContract {
  @Override
  protected EngineStorage openStorage() {
    return EngineStorage.memoryWal();
  }
}
