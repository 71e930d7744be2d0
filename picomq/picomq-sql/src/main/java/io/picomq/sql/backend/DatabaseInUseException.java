package io.picomq.sql.backend;

import java.nio.file.Path;

/**
 * A SQLite file that another node (another process, or another backend in this process) already has
 * open. SQLite serves one node; a cluster shares Postgres.
 */
public final class DatabaseInUseException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final transient Path database;

  DatabaseInUseException(Path database, Path lockFile, String holder) {
    super(
        "sqlite:"
            + database
            + " is already open by another PicoMQ node ("
            + holder
            + ", lock file "
            + lockFile
            + "). A SQLite metadata database serves one node: stop the other node, or use"
            + " postgres:// to run a cluster");
    this.database = database;
  }

  /** The database file that is in use. */
  public Path database() {
    return database;
  }
}
