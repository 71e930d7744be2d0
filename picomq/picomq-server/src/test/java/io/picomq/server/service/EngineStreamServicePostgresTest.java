package io.picomq.server.service;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.Schema;
import io.picomq.sql.backend.SqlBackend;
import io.picomq.stream.StreamService;
import io.picomq.stream.testing.MutableClock;
import io.picomq.stream.testing.StreamServiceContract;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service contract on the machine's real Postgres ({@code PICOMQ_PG_URL}, set by {@code
 * .ci/run}) and file:// storage. Each test uses tables with a fresh random prefix and drops them.
 */
class EngineStreamServicePostgresTest extends StreamServiceContract {
  private static final String URL = System.getenv("PICOMQ_PG_URL");
  private static final String SKIPPED =
      "PICOMQ_PG_URL is not set: the Postgres service contract tests are SKIPPED";

  @TempDir Path dir;
  private NodeFixture node;
  private BackendOptions options;

  @BeforeAll
  static void sayWhyWhenSkipped() {
    if (URL == null || URL.isBlank()) {
      System.err.println("WARNING: " + SKIPPED);
    }
  }

  @Override
  protected StreamService newService(MutableClock clock) {
    assumeTrue(URL != null && !URL.isBlank(), SKIPPED);
    String prefix = "s" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()) + "_";
    options = BackendOptions.builder().tablePrefix(prefix).build();
    try {
      node = new NodeFixture(URL, options, dir, 1, clock);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return node.service;
  }

  @AfterEach
  void stopAndDropTables() throws Exception {
    if (node == null) {
      return;
    }
    node.close();
    try (SqlBackend backend = SqlBackend.open(MetaUrl.parse(URL), options)) {
      Schema.drop(backend);
    }
  }
}
