package io.picomq.s3stream.objectstore.file;

import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class FileObjectStoreContractTest extends ObjectStoreContract {
  @TempDir Path root;

  @Override
  protected ObjectStore openStore() throws Exception {
    return FileObjectStore.open(root.resolve("objects"), 8);
  }
}
