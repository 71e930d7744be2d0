package io.picomq.server.metadata;

import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.backend.SqlDialect;
import io.picomq.sql.backend.SqlWork;
import io.picomq.sql.backend.TableNames;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;

/**
 * A real backend that a test can make fail every statement, or hang every statement until it is
 * healed: a database that is down, and one that no longer answers.
 */
final class SwitchableBackend implements SqlBackend {
  private final SqlBackend real;
  private volatile boolean failing;
  private volatile CountDownLatch hang = new CountDownLatch(0);

  SwitchableBackend(SqlBackend real) {
    this.real = real;
  }

  /** Every statement from now on fails. */
  void fail() {
    failing = true;
  }

  /** Every statement from now on waits until {@link #heal()}. */
  void hang() {
    hang = new CountDownLatch(1);
  }

  /** Statements reach the database again; hanging ones go on. */
  void heal() {
    failing = false;
    hang.countDown();
  }

  @Override
  public SqlDialect dialect() {
    return real.dialect();
  }

  @Override
  public TableNames tables() {
    return real.tables();
  }

  @Override
  public String describe() {
    return real.describe();
  }

  @Override
  public <T> T withConnection(SqlWork<T> work) throws SQLException {
    try {
      hang.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted", e);
    }
    if (failing) {
      throw new SQLException("the database is down (injected)");
    }
    return real.withConnection(work);
  }

  @Override
  public void close() {
    heal();
  }
}
