package io.picomq.s3stream.core.read;

import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.file.FileObjectStore;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The read path contract on a file:// store. */
class FileStorageReaderTest extends StorageReaderContract {
  @TempDir static Path directory;
  private static FileObjectStore store;

  @BeforeAll
  static void openStore() throws Exception {
    store = FileObjectStore.open(directory, 2);
  }

  @AfterAll
  static void closeStore() {
    store.close();
  }

  @Override
  protected ObjectStore store() {
    return store;
  }
}
