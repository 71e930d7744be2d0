package io.picomq.s3stream.core;

import io.picomq.s3stream.core.testing.EngineStorage;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engine-scheduled compaction on the object WAL and data objects in a directory ({@code file://}).
 */
class FileEngineCompactionTest extends EngineCompactionContract {

  @TempDir Path directory;

  @Override
  protected EngineStorage openStorage() {
    return EngineStorage.file(directory);
  }
}
