package io.picomq.s3stream.objectstore;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class MemoryObjectStoreContractTest extends ObjectStoreContract {
  private static ResourceLeakDetector.Level previous;

  /** Every buffer is tracked here: the memory store is fast enough to afford it. */
  @BeforeAll
  static void trackEveryBuffer() {
    previous = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  @AfterAll
  static void restoreLeakDetection() {
    ResourceLeakDetector.setLevel(previous);
  }

  @Override
  protected ObjectStore openStore() {
    return new MemoryObjectStore();
  }
}
