package io.picomq.s3stream.core;

import io.picomq.s3stream.core.testing.EngineStorage;

/** Takeovers of the object WAL in a {@code memory://} store. */
class MemoryStoreTakeoverTest extends TakeoverContract {

  @Override
  protected EngineStorage openStorage() {
    return EngineStorage.memoryStore();
  }
}
