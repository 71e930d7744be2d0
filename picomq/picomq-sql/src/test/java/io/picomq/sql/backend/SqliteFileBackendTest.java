package io.picomq.sql.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sqlite:PATH}: created on demand, and one node at a time. */
class SqliteFileBackendTest {
  @TempDir Path folder;

  @Test
  void createsMissingParentFoldersAndTheSchema() throws SQLException {
    Path database = folder.resolve("a/b/c/meta.db");
    try (SqlBackend backend =
        SqlBackend.open(new MetaUrl.SqliteFile(database), BackendOptions.defaults())) {
      assertThat(database).exists();
      assertThat(Schema.ensure(backend)).isEqualTo(Schema.VERSION);
      assertThat(backend.describe()).isEqualTo("sqlite:" + database);
    }
  }

  @Test
  void aSecondNodeInThisProcessIsRefusedUntilTheFirstCloses() throws SQLException {
    MetaUrl url = new MetaUrl.SqliteFile(folder.resolve("meta.db"));
    try (SqlBackend first = SqlBackend.open(url, BackendOptions.defaults())) {
      assertThatThrownBy(() -> SqlBackend.open(url, BackendOptions.defaults()))
          .isInstanceOf(DatabaseInUseException.class)
          .hasMessageContaining("sqlite:" + folder.resolve("meta.db"))
          .hasMessageContaining("already open by another PicoMQ node")
          .hasMessageContaining("pid " + ProcessHandle.current().pid())
          .hasMessageContaining("use postgres:// to run a cluster");
      boolean firstStillWorks = first.withConnection(connection -> connection.isValid(1));
      assertThat(firstStillWorks).isTrue();
    }
    try (SqlBackend again = SqlBackend.open(url, BackendOptions.defaults())) {
      assertThat(again.describe()).endsWith("meta.db");
    }
  }

  @Test
  void aSecondProcessIsRefusedWithTheHolderNamed() throws Exception {
    Path database = folder.resolve("shared/meta.db");
    try (SqlBackend mine =
        SqlBackend.open(new MetaUrl.SqliteFile(database), BackendOptions.defaults())) {
      assertThat(mine.describe()).isEqualTo("sqlite:" + database);
      Process other = startOpener(database);
      assertThat(other.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String output = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(other.exitValue()).as(output).isEqualTo(SqliteOpener.IN_USE);
      assertThat(output)
          .contains("already open by another PicoMQ node")
          .contains("pid " + ProcessHandle.current().pid());
    }
    Process later = startOpener(database);
    assertThat(later.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(later.exitValue()).isEqualTo(SqliteOpener.OPENED);
  }

  private static Process startOpener(Path database) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    return new ProcessBuilder(
            java.toString(),
            "-cp",
            System.getProperty("java.class.path"),
            SqliteOpener.class.getName(),
            database.toString())
        .redirectErrorStream(true)
        .start();
  }

  @Test
  void theLockFileLivesBesideTheDatabase() throws SQLException, IOException {
    Path database = folder.resolve("meta.db");
    try (SqlBackend backend =
        SqlBackend.open(new MetaUrl.SqliteFile(database), BackendOptions.defaults())) {
      assertThat(backend.describe()).isEqualTo("sqlite:" + database);
      assertThat(Files.readString(folder.resolve("meta.db.lock")))
          .startsWith("pid " + ProcessHandle.current().pid());
    }
  }
}
