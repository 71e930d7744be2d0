package io.picomq.s3stream.wal;

import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.file.FileObjectStore;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The WAL contract for {@link ObjectWal} on a {@code file://} directory. */
class ObjectWalOnFileStoreContractTest extends ObjectWalContract {

  @TempDir Path directory;

  @Override
  protected ObjectStore openStore() throws Exception {
    return FileObjectStore.open(directory.resolve("objects"), 8);
  }

  @Override
  protected int maxPutDelayMicros() {
    return 500;
  }

  @Override
  protected int crashRounds() {
    return 20;
  }
}
