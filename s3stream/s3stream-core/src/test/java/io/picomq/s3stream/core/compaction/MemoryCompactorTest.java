package io.picomq.s3stream.core.compaction;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.nio.file.Path;

/** Compaction on the memory backend. */
class MemoryCompactorTest extends CompactorContract {
  @Override
  ObjectStore newStore(Path dir, UnpooledByteBufAllocator allocator) {
    return new MemoryObjectStore();
  }
}
