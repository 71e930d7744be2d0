package io.picomq.sql.backend;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import java.sql.SQLException;

/** Opens {@code postgres://...}: a HikariCP pool over pgjdbc. */
final class PostgresBackend {
  private PostgresBackend() {}

  static SqlBackend open(MetaUrl.Postgres url, BackendOptions options) throws SQLException {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url.jdbcUrl());
    url.user().ifPresent(config::setUsername);
    url.password().ifPresent(config::setPassword);
    config.setPoolName("picomq-postgres");
    // One more than asked: a metadata log holds one for good to LISTEN for other nodes' rows.
    config.setMaximumPoolSize(options.poolSize() + 1);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(options.connectTimeout().toMillis());
    config.addDataSourceProperty("ApplicationName", "picomq");
    config.addDataSourceProperty(
        "connectTimeout", Long.toString(Math.max(1, options.connectTimeout().toSeconds())));
    // A dead server must surface as an error, not as a thread blocked forever in a socket read.
    config.addDataSourceProperty("socketTimeout", "60");
    config.addDataSourceProperty("tcpKeepAlive", "true");
    try {
      return new PooledBackend(
          new HikariDataSource(config),
          SqlDialect.POSTGRES,
          options.tables(),
          url.redacted(),
          () -> {});
    } catch (HikariPool.PoolInitializationException e) {
      throw new SQLException(
          "cannot connect to " + url.redacted() + ": " + PooledBackend.rootMessage(e),
          e.getCause());
    }
  }
}
