package io.picomq.sql.contract;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.SqlBackend;
import java.sql.SQLException;

/** The contract on {@code sqlite::memory:}: every node takes turns on its single connection. */
class SqliteMemoryMetaPlaneTest extends MetaPlaneContract {
  private SqlBackend backend;

  @Override
  protected SqlBackend openNodeBackend() throws SQLException {
    if (backend == null) {
      backend = SqlBackend.open(new MetaUrl.SqliteMemory(), BackendOptions.defaults());
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
