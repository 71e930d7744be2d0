package io.picomq.s3stream.wal;

import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;

/** The WAL contract for {@link ObjectWal} on {@link MemoryObjectStore}. */
class ObjectWalOnMemoryStoreContractTest extends ObjectWalContract {

  @Override
  protected ObjectStore openStore() {
    return new MemoryObjectStore();
  }

  @Override
  protected int crashRounds() {
    return 60;
  }
}
