package io.picomq.sql.contract;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.backend.TableNames;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The contract on the machine's real Postgres, named by {@code PICOMQ_PG_URL} (set by {@code
 * .ci/run}). Every node gets its own connection pool, as separate processes would. Each test works
 * in tables with a fresh random prefix and drops them afterwards, so parallel runs never collide.
 */
class PostgresMetaPlaneTest extends MetaPlaneContract {
  private static final String URL = System.getenv("PICOMQ_PG_URL");

  private final List<SqlBackend> backends = new ArrayList<>();
  private String prefix;

  private static final String SKIPPED =
      "PICOMQ_PG_URL is not set: the Postgres contract tests are SKIPPED"
          + " (export PICOMQ_PG_URL=postgres://postgres@127.0.0.1:5432/test to run them)";

  @BeforeAll
  static void sayWhyWhenSkipped() {
    if (URL == null || URL.isBlank()) {
      System.err.println("WARNING: " + SKIPPED);
    }
  }

  @BeforeEach
  void requirePostgresAndFreshTables() {
    assumeTrue(URL != null && !URL.isBlank(), SKIPPED);
    prefix = "t" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()) + "_";
  }

  @Override
  protected SqlBackend openNodeBackend() throws SQLException {
    SqlBackend backend =
        SqlBackend.open(
            MetaUrl.parse(URL), BackendOptions.builder().tablePrefix(prefix).poolSize(6).build());
    backends.add(backend);
    return backend;
  }

  @Override
  protected void closeBackends() throws SQLException {
    if (!backends.isEmpty()) {
      TableNames tables = backends.get(0).tables();
      backends
          .get(0)
          .withConnection(
              connection -> {
                try (Statement drop = connection.createStatement()) {
                  for (String table :
                      List.of(
                          tables.log(),
                          tables.snapshot(),
                          tables.lease(),
                          tables.schemaVersion())) {
                    drop.execute("DROP TABLE IF EXISTS " + table);
                  }
                }
                return null;
              });
    }
    backends.forEach(SqlBackend::close);
    backends.clear();
  }
}
