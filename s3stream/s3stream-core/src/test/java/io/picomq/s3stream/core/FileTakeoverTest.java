package io.picomq.s3stream.core;

import io.picomq.s3stream.core.testing.EngineStorage;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Takeovers of the object WAL in a directory ({@code file://}). */
class FileTakeoverTest extends TakeoverContract {

  @TempDir Path directory;

  @Override
  protected EngineStorage openStorage() {
    return EngineStorage.file(directory);
  }
}
