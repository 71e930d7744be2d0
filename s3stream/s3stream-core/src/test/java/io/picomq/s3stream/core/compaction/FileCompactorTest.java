package io.picomq.s3stream.core.compaction;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.objectstore.IoPool;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.file.FileObjectStore;
import java.nio.file.Path;
import java.time.Duration;

/** Compaction on the file:// backend; its reads allocate from the test's counting allocator. */
class FileCompactorTest extends CompactorContract {
  @Override
  ObjectStore newStore(Path dir, UnpooledByteBufAllocator allocator) {
    return new FileObjectStore(
        dir, new IoPool("compaction-test-io", 2, 1024, Duration.ofSeconds(5)), allocator);
  }
}
