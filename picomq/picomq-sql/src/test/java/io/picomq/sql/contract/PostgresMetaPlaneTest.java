package io.picomq.sql.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.Schema;
import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.fault.Eventually;
import io.picomq.sql.kv.KvCommand;
import io.picomq.sql.kv.KvResult;
import io.picomq.sql.kv.KvState;
import io.picomq.sql.log.SqlLog;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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
      Schema.drop(backends.get(0));
    }
    backends.forEach(SqlBackend::close);
    backends.clear();
  }

  @Test
  void anotherNodesRowWakesAnIdleTailerAtOnce() throws Exception {
    // Both tailers poll once an hour: only the notification can bring A's row to B in time.
    SqlLog<KvState, KvCommand, KvResult> a = startLog(node(), wokenOnlyByItsOwnWrites("a").build());
    SqlLog<KvState, KvCommand, KvResult> b = startLog(node(), wokenOnlyByItsOwnWrites("b").build());
    for (int i = 0; i < 3; i++) {
      propose(a, new KvCommand.Put("k" + i, "v" + i));
      long written = a.view().appliedIndex();
      b.awaitApplied(written, WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(b.view().state().entries()).containsEntry("k" + i, "v" + i);
    }
  }

  @Test
  void aListenerThatLostItsConnectionListensAgain() throws Exception {
    SqlLog<KvState, KvCommand, KvResult> a = startLog(node(), wokenOnlyByItsOwnWrites("a").build());
    SqlLog<KvState, KvCommand, KvResult> b = startLog(node(), wokenOnlyByItsOwnWrites("b").build());
    // Ends every listening session but the test's own, as a restarted server or a proxy would.
    SqlBackend admin = openNodeBackend();
    Eventually.await(WAIT, "both nodes listen", () -> terminateListeners(admin) >= 2);
    propose(a, new KvCommand.Put("after", "reconnect"));
    b.awaitApplied(a.view().appliedIndex(), WAIT).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(b.view().state().entries()).containsEntry("after", "reconnect");
  }

  /** Terminates the sessions listening on this test's log; returns how many there were. */
  private static int terminateListeners(SqlBackend admin) throws SQLException {
    return admin.withConnection(
        connection -> {
          try (PreparedStatement kill =
              connection.prepareStatement(
                  "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = ?")) {
            kill.setString(1, "LISTEN \"" + admin.tables().log() + "\"");
            try (ResultSet killed = kill.executeQuery()) {
              int count = 0;
              while (killed.next()) {
                count++;
              }
              return count;
            }
          }
        });
  }
}
