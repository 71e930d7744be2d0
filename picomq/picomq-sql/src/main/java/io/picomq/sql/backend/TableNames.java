package io.picomq.sql.backend;

import java.util.regex.Pattern;

/**
 * The names of our tables, all sharing one prefix so that several independent metadata planes (or
 * parallel test runs) can live in one database.
 *
 * @param prefix lower-case letters, digits and underscores, starting with a letter; at most 40
 *     characters (Postgres truncates identifiers at 63 bytes)
 */
public record TableNames(String prefix) {
  private static final Pattern VALID = Pattern.compile("[a-z][a-z0-9_]{0,39}");

  /** The prefix used unless configured: {@code picomq_}. */
  public static final String DEFAULT_PREFIX = "picomq_";

  public TableNames {
    if (!VALID.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "table prefix '"
              + prefix
              + "' must be lower-case letters, digits and '_', start with a letter, and have at"
              + " most 40 characters");
    }
  }

  /** The command log: {@code (idx, payload)}. */
  public String log() {
    return prefix + "log";
  }

  /** The single snapshot row: {@code (id = 1, idx, payload)}. */
  public String snapshot() {
    return prefix + "snapshot";
  }

  /**
   * The pieces of the stored snapshot: {@code (idx, writer, seq, payload)}, see {@code
   * io.picomq.sql.log.SnapshotTable}.
   */
  public String snapshotChunks() {
    return prefix + "snapshot_chunks";
  }

  /** The single lease row: {@code (id = 1, holder, epoch, expires_at_millis)}. */
  public String lease() {
    return prefix + "lease";
  }

  /**
   * One liveness row per node id: {@code (node_id, node_epoch, ttl_millis, renewed_at_millis,
   * expires_at_millis)}, see {@code io.picomq.sql.liveness}.
   */
  public String nodesAlive() {
    return prefix + "nodes_alive";
  }

  /** The versions of the schema installed so far. */
  public String schemaVersion() {
    return prefix + "schema_version";
  }
}
