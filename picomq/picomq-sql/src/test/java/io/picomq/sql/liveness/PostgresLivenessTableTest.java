package io.picomq.sql.liveness;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.Schema;
import io.picomq.sql.backend.SqlBackend;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeAll;

/**
 * The liveness statements on the machine's real Postgres, named by {@code PICOMQ_PG_URL}; each test
 * in tables of a fresh random prefix, dropped afterwards.
 */
class PostgresLivenessTableTest extends LivenessTableContract {
  private static final String URL = System.getenv("PICOMQ_PG_URL");
  private static final String SKIPPED =
      "PICOMQ_PG_URL is not set: the Postgres liveness tests are SKIPPED"
          + " (export PICOMQ_PG_URL=postgres://postgres@127.0.0.1:5432/test to run them)";

  @BeforeAll
  static void sayWhyWhenSkipped() {
    if (URL == null || URL.isBlank()) {
      System.err.println("WARNING: " + SKIPPED);
    }
  }

  @Override
  protected SqlBackend open() throws SQLException {
    assumeTrue(URL != null && !URL.isBlank(), SKIPPED);
    String prefix = "t" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()) + "_";
    return SqlBackend.open(
        MetaUrl.parse(URL), BackendOptions.builder().tablePrefix(prefix).poolSize(2).build());
  }

  @Override
  protected void close(SqlBackend backend) throws SQLException {
    try {
      Schema.drop(backend);
    } finally {
      backend.close();
    }
  }
}
