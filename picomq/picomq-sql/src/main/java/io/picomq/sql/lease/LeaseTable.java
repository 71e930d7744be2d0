package io.picomq.sql.lease;

import io.picomq.sql.backend.SqlBackend;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The conditional statements on the lease row {@code (id = 1, holder, epoch, expires_at_millis)}.
 * Each update names the row it expects, so of two nodes racing only one succeeds, and a node whose
 * epoch is stale can change nothing. No holder is stored as {@code ''}.
 */
public final class LeaseTable {
  private final SqlBackend backend;
  private final String readSql;
  private final String takeOverSql;
  private final String renewSql;
  private final String releaseSql;

  public LeaseTable(SqlBackend backend) {
    this.backend = backend;
    String lease = backend.tables().lease();
    this.readSql = "SELECT holder, epoch, expires_at_millis FROM " + lease + " WHERE id = 1";
    this.takeOverSql =
        "UPDATE "
            + lease
            + " SET holder = ?, epoch = ?, expires_at_millis = ?"
            + " WHERE id = 1 AND holder = ? AND epoch = ? AND expires_at_millis = ?";
    this.renewSql =
        "UPDATE " + lease + " SET expires_at_millis = ? WHERE id = 1 AND holder = ? AND epoch = ?";
    this.releaseSql =
        "UPDATE "
            + lease
            + " SET holder = '', expires_at_millis = 0 WHERE id = 1 AND holder = ? AND epoch = ?";
  }

  public LeaseRow read() throws SQLException {
    return backend.withConnection(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(readSql);
              ResultSet rows = select.executeQuery()) {
            if (!rows.next()) {
              throw new SQLException(
                  backend.tables().lease() + " has no row 1; was the schema created?");
            }
            String holder = rows.getString(1);
            return new LeaseRow(
                holder.isEmpty() ? Optional.empty() : Optional.of(holder),
                rows.getLong(2),
                rows.getLong(3));
          }
        });
  }

  /**
   * Makes {@code node} the holder with epoch {@code seen.epoch() + 1}, if the row still equals
   * {@code seen} (compare-and-set of the whole row: a renewal in between changes the expiry and
   * defeats the takeover). The caller decides whether {@code seen} may be taken over.
   *
   * @return the row as written, or empty if the row changed since {@code seen}
   */
  public Optional<LeaseRow> takeOver(LeaseRow seen, String node, long expiresAtMillis)
      throws SQLException {
    requireNode(node);
    LeaseRow next = new LeaseRow(Optional.of(node), seen.epoch() + 1, expiresAtMillis);
    int updated =
        backend.withConnection(
            connection -> {
              try (PreparedStatement update = connection.prepareStatement(takeOverSql)) {
                update.setString(1, node);
                update.setLong(2, next.epoch());
                update.setLong(3, expiresAtMillis);
                update.setString(4, seen.holder().orElse(""));
                update.setLong(5, seen.epoch());
                update.setLong(6, seen.expiresAtMillis());
                return update.executeUpdate();
              }
            });
    return updated == 1 ? Optional.of(next) : Optional.empty();
  }

  /**
   * Extends {@code node}'s tenure {@code epoch} to {@code expiresAtMillis}.
   *
   * @return the row as written, or empty if {@code node} no longer holds {@code epoch} (fenced)
   */
  public Optional<LeaseRow> renew(String node, long epoch, long expiresAtMillis)
      throws SQLException {
    requireNode(node);
    int updated =
        backend.withConnection(
            connection -> {
              try (PreparedStatement update = connection.prepareStatement(renewSql)) {
                update.setLong(1, expiresAtMillis);
                update.setString(2, node);
                update.setLong(3, epoch);
                return update.executeUpdate();
              }
            });
    return updated == 1
        ? Optional.of(new LeaseRow(Optional.of(node), epoch, expiresAtMillis))
        : Optional.empty();
  }

  /**
   * Gives up {@code node}'s tenure {@code epoch} so another node can take over without waiting for
   * the expiry. The epoch stays; the next takeover increments it.
   *
   * @return the row as written, or empty if {@code node} no longer held {@code epoch}
   */
  public Optional<LeaseRow> release(String node, long epoch) throws SQLException {
    requireNode(node);
    int updated =
        backend.withConnection(
            connection -> {
              try (PreparedStatement update = connection.prepareStatement(releaseSql)) {
                update.setString(1, node);
                update.setLong(2, epoch);
                return update.executeUpdate();
              }
            });
    return updated == 1 ? Optional.of(new LeaseRow(Optional.empty(), epoch, 0)) : Optional.empty();
  }

  private static void requireNode(String node) {
    if (node.isEmpty()) {
      throw new IllegalArgumentException("node id is empty");
    }
  }
}
