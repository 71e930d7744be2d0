package io.picomq.sql.backend;

/**
 * The two SQL dialects we speak. Every statement the log and the lease issue is written in the
 * subset both share ({@code INSERT ... ON CONFLICT}, conditional {@code UPDATE}); only the column
 * types of the schema differ.
 */
public enum SqlDialect {
  SQLITE("INTEGER", "BLOB"),
  POSTGRES("BIGINT", "BYTEA");

  private final String int64Type;
  private final String bytesType;

  SqlDialect(String int64Type, String bytesType) {
    this.int64Type = int64Type;
    this.bytesType = bytesType;
  }

  /**
   * The 64-bit integer type. On SQLite {@code INTEGER PRIMARY KEY} makes the column the rowid, so
   * the log is stored in index order with no second B-tree.
   */
  public String int64Type() {
    return int64Type;
  }

  /** The variable-length byte string type for payloads. */
  public String bytesType() {
    return bytesType;
  }
}
