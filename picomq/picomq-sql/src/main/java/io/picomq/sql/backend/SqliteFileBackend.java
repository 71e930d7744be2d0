package io.picomq.sql.backend;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import org.sqlite.SQLiteDataSource;

/**
 * Opens {@code sqlite:PATH}: creates the parent folders, takes the node lock, pools connections.
 */
final class SqliteFileBackend {
  private SqliteFileBackend() {}

  static SqlBackend open(Path path, BackendOptions options) throws SQLException {
    Path database = path.toAbsolutePath().normalize();
    SqliteFileLock lock;
    try {
      Path parent = database.getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      lock = SqliteFileLock.acquire(database);
    } catch (IOException e) {
      throw new SQLException("cannot open sqlite:" + database + ": " + e.getMessage(), e);
    }
    try {
      SQLiteDataSource source = new SQLiteDataSource(SqliteSettings.config(options, false));
      source.setUrl("jdbc:sqlite:" + database);
      HikariConfig config = new HikariConfig();
      config.setDataSource(source);
      config.setPoolName("picomq-sqlite");
      config.setMaximumPoolSize(options.poolSize());
      config.setMinimumIdle(1);
      config.setConnectionTimeout(options.connectTimeout().toMillis());
      HikariDataSource pool = new HikariDataSource(config);
      return new PooledBackend(
          pool, SqlDialect.SQLITE, options.tables(), "sqlite:" + database, lock);
    } catch (HikariPool.PoolInitializationException e) {
      lock.close();
      throw new SQLException(
          "cannot open sqlite:" + database + ": " + PooledBackend.rootMessage(e), e.getCause());
    } catch (RuntimeException e) {
      lock.close();
      throw e;
    }
  }
}
