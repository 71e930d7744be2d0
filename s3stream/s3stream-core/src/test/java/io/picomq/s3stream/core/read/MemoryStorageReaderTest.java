package io.picomq.s3stream.core.read;

import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;

/** The read path contract on the in-memory store. */
class MemoryStorageReaderTest extends StorageReaderContract {
  private final MemoryObjectStore store = new MemoryObjectStore();

  @Override
  protected ObjectStore store() {
    return store;
  }
}
