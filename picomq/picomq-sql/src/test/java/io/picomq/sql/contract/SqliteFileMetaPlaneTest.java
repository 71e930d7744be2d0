package io.picomq.sql.contract;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.SqlBackend;
import java.nio.file.Path;
import java.sql.SQLException;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract on a SQLite file. A file serves one node, so the "nodes" here are separate log and
 * lease instances in this process sharing the one backend, each borrowing its own pooled
 * connections.
 */
class SqliteFileMetaPlaneTest extends MetaPlaneContract {
  @TempDir Path folder;

  private SqlBackend backend;

  @Override
  protected SqlBackend openNodeBackend() throws SQLException {
    if (backend == null) {
      backend =
          SqlBackend.open(
              new MetaUrl.SqliteFile(folder.resolve("data/meta.db")),
              BackendOptions.builder().poolSize(24).build());
    }
    return backend;
  }

  @Override
  protected void closeBackends() {
    if (backend != null) {
      backend.close();
      backend = null;
    }
  }
}
