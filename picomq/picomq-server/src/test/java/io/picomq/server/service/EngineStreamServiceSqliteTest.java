package io.picomq.server.service;

import io.picomq.stream.StreamService;
import io.picomq.stream.testing.MutableClock;
import io.picomq.stream.testing.StreamServiceContract;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** The service contract on the real service: SQLite metadata, file:// storage. */
class EngineStreamServiceSqliteTest extends StreamServiceContract {
  @TempDir Path dir;
  private NodeFixture node;

  @Override
  protected StreamService newService(MutableClock clock) {
    try {
      node = new NodeFixture("sqlite:" + dir.resolve("meta.db"), dir, 1, clock);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return node.service;
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
  }
}
