package io.picomq.sql.backend;

import org.sqlite.SQLiteConfig;

/** The connection settings every SQLite connection we open gets. */
final class SqliteSettings {
  private SqliteSettings() {}

  /**
   * WAL journal so the tailer's reads never wait for the flusher's write; {@code synchronous=FULL}
   * because a proposal is acknowledged once its row is committed, so the commit must be on disk; a
   * busy timeout so concurrent writers queue instead of failing; {@code IMMEDIATE} transactions so
   * a snapshot's write transaction takes the write lock up front.
   */
  static SQLiteConfig config(BackendOptions options, boolean inMemory) {
    SQLiteConfig config = new SQLiteConfig();
    if (!inMemory) {
      config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    }
    config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    config.setBusyTimeout(Math.toIntExact(options.busyTimeout().toMillis()));
    config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
    return config;
  }
}
