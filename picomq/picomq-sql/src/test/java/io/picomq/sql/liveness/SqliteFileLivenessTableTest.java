package io.picomq.sql.liveness;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.SqlBackend;
import java.nio.file.Path;
import java.sql.SQLException;
import org.junit.jupiter.api.io.TempDir;

/** The liveness statements on a SQLite file. */
class SqliteFileLivenessTableTest extends LivenessTableContract {
  @TempDir Path folder;

  @Override
  protected SqlBackend open() throws SQLException {
    return SqlBackend.open(
        new MetaUrl.SqliteFile(folder.resolve("meta.db")), BackendOptions.defaults());
  }

  @Override
  protected void close(SqlBackend backend) {
    backend.close();
  }
}
