package io.picomq.s3stream.core;

import io.picomq.s3stream.core.testing.EngineStorage;

/** Engine-scheduled compaction on the memory WAL and the memory object store. */
class MemoryEngineCompactionTest extends EngineCompactionContract {
  @Override
  protected EngineStorage openStorage() {
    return EngineStorage.memoryWal();
  }
}
