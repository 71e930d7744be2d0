package io.picomq.s3stream.pgwal;

import io.picomq.s3stream.wal.Recovery;
import io.picomq.s3stream.wal.WalFencedException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WAL instance's transactions: start (checks and claim), recovery, reset, a batch's insert and
 * a trim. Each is safe to run again after it failed anywhere, including after a commit whose answer
 * was lost, which is how {@link DatabaseCalls} retries them:
 *
 * <ul>
 *   <li>the claim carries this instance's {@code claim_id}, so finding its own claim is success;
 *   <li>an insert finding its own row, byte for byte, is success ({@link SlotRows#insert});
 *   <li>a trim only raises the recorded offset, and truncating an empty table again changes
 *       nothing.
 * </ul>
 */
final class WalDatabase {

  private static final Logger LOG = LoggerFactory.getLogger(WalDatabase.class);

  private final String who;
  private final long epoch;
  private final String claimId = UUID.randomUUID().toString();
  private final RingGeometry ring;
  private final boolean allowUnsafe;
  private final ServerProbe probe;
  private final WalSchema schema;
  private final NodeRows node;
  private final SlotRows slots;

  WalDatabase(
      String clusterId,
      int nodeId,
      long epoch,
      RingGeometry ring,
      boolean allowUnsafe,
      ServerProbe probe) {
    this.who = "WAL of node " + nodeId + " (epoch " + epoch + ")";
    this.epoch = epoch;
    this.ring = ring;
    this.allowUnsafe = allowUnsafe;
    this.probe = probe;
    this.schema = new WalSchema(clusterId, nodeId);
    this.node = new NodeRows(clusterId, nodeId, epoch);
    this.slots = new SlotRows(node, clusterId, nodeId, epoch);
  }

  String slotTable(int slot) {
    return schema.slotTable(slot);
  }

  /**
   * Checks the server, claims the node for this epoch (fencing every older one) and finds what
   * older epochs left.
   *
   * @throws UnsafeDatabaseException if the server cannot hold the WAL
   * @throws WalFencedException if a newer epoch claimed the node
   * @throws IllegalStateException if another instance claimed it with this epoch before
   */
  StartedNode start(Connection connection) throws SQLException {
    WalSchema.ensureNodeTable(connection);
    ServerSettings settings = probe.read(connection);
    StartupChecks.server(settings, allowUnsafe)
        .forEach(warning -> LOG.warn("{}: {}", who, warning));
    NodeRow claimed =
        Transactions.run(
            connection,
            () -> {
              node.insertIfMissing(connection, ring);
              NodeRow row = node.lockForClaim(connection);
              checkClaimable(row);
              StartupChecks.timeline(
                      row.timeline(), settings.timeline(), settings.hasSynchronousStandby())
                  .ifPresent(warning -> LOG.warn("{}: {}", who, warning));
              node.claim(
                  connection,
                  claimId,
                  settings.timeline().isPresent() ? settings.timeline() : row.timeline());
              schema.createSlots(connection, ring.segments());
              return row;
            });
    // Claimed: no older epoch can insert or truncate any more, so what is read now stays.
    long firstUntrimmed = claimed.trimOffset() + 1;
    long nextOffset = firstUntrimmed;
    List<RowRange> untrimmed = new ArrayList<>();
    for (String table : schema.existingSlots(connection).values()) {
      untrimmed.addAll(SlotRows.untrimmed(connection, table, firstUntrimmed));
      nextOffset = Math.max(nextOffset, SlotRows.maxEnd(connection, table));
    }
    return new StartedNode(claimed.trimOffset(), nextOffset, untrimmed);
  }

  /** The records earlier epochs left above the trim offset. */
  Recovery recover(Connection connection, StartedNode started) throws SQLException {
    RecoveryChain chain = RecoveryChain.of(started.untrimmed(), started.trimOffset(), epoch);
    return RowRecoveryReader.read(connection, chain, started.trimOffset());
  }

  /**
   * Consumes everything older epochs left, in one transaction: empties every slot table, drops
   * those beyond the configured ring, records the trim offset {@code nextOffset - 1} and this
   * epoch's ring. Truncation comes before the node row's update: a fenced writer's insert holds its
   * slot table and then waits for the node row, so taking them in the other order could deadlock.
   *
   * @throws WalFencedException if a newer epoch claimed the node (nothing changes)
   */
  void reset(Connection connection, StartedNode started) throws SQLException {
    Transactions.run(
        connection,
        () -> {
          WalSchema.lockDdl(connection);
          TreeMap<Integer, String> existing = schema.existingSlots(connection);
          try (Statement statement = connection.createStatement()) {
            if (!existing.isEmpty()) {
              statement.execute("TRUNCATE " + String.join(", ", existing.values()));
            }
            for (Map.Entry<Integer, String> slot : existing.entrySet()) {
              if (slot.getKey() >= ring.segments()) {
                statement.execute("DROP TABLE " + slot.getValue());
              }
            }
          }
          schema.createSlots(connection, ring.segments());
          node.recordTrim(connection, started.nextOffset() - 1, Optional.of(ring));
          return null;
        });
  }

  /** Inserts one batch's row into its slot table, fenced. */
  InsertOutcome insert(
      Connection connection, int slot, long startOffset, long endOffset, byte[] framed)
      throws SQLException {
    return slots.insert(connection, schema.slotTable(slot), startOffset, endOffset, framed);
  }

  /**
   * Records the trim offset, then truncates the slot tables holding only trimmed records.
   *
   * @throws WalFencedException if a newer epoch claimed the node
   */
  void trim(Connection connection, long trimOffset, List<Integer> truncatable) throws SQLException {
    node.recordTrim(connection, trimOffset, Optional.empty());
    slots.truncate(connection, truncatable.stream().map(schema::slotTable).toList());
  }

  private void checkClaimable(NodeRow row) {
    if (row.epoch() > epoch) {
      throw new WalFencedException(
          epoch, "the newer epoch " + row.epoch() + " already claimed the node");
    }
    if (row.epoch() == epoch && !row.claimId().equals(claimId)) {
      throw new IllegalStateException(
          who + ": epoch " + epoch + " was used before; every start needs a new, higher epoch");
    }
  }

  @Override
  public String toString() {
    return who;
  }
}
