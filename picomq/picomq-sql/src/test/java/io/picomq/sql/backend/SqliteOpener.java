package io.picomq.sql.backend;

import java.nio.file.Path;

/** Run in a child JVM by {@link SqliteFileBackendTest}: opens a SQLite file as a second node. */
public final class SqliteOpener {
  static final int OPENED = 0;
  static final int IN_USE = 3;

  private SqliteOpener() {}

  public static void main(String[] args) throws Exception {
    try (SqlBackend backend =
        SqlBackend.open(new MetaUrl.SqliteFile(Path.of(args[0])), BackendOptions.defaults())) {
      System.out.println("opened " + backend.describe());
      System.exit(OPENED);
    } catch (DatabaseInUseException e) {
      System.out.println(e.getMessage());
      System.exit(IN_USE);
    }
  }
}
