package io.picomq.sql.liveness;

import java.util.Map;
import java.util.Optional;

/**
 * Every liveness row as read at one moment, with the database's clock at that moment: enough to
 * judge any node without asking the database again. Immutable.
 *
 * <p>A node renews every quarter of its TTL, so a row renewed within half the TTL (two renewal
 * intervals) is {@link NodeState#LIVE}; one that missed more is {@link NodeState#SUSPECT} until it
 * lapses, and then {@link NodeState#DEAD}. Every comparison is between two readings of the
 * database's clock, so the clocks of the nodes never enter into it.
 *
 * @param rows the rows by node id
 * @param nowMillis the database's clock when the rows were read, in milliseconds since the Unix
 *     epoch (or later, see {@link #later})
 * @param readMillis the database's clock when the rows were read
 */
public record LivenessView(Map<Integer, LivenessRow> rows, long nowMillis, long readMillis) {

  /**
   * How long a process may take from choosing its epoch to writing its first row (opening the
   * metadata database comes between). Only delays a verdict of dead: a process that registered has
   * written its row, so one without a row after this long is gone.
   */
  public static final long STARTING_MILLIS = 10_000;

  /** The rows as read at {@code nowMillis}. */
  public LivenessView(Map<Integer, LivenessRow> rows, long nowMillis) {
    this(rows, nowMillis, nowMillis);
  }

  public LivenessView {
    rows = Map.copyOf(rows);
    rows.forEach(
        (nodeId, row) -> {
          if (nodeId != row.nodeId()) {
            throw new IllegalArgumentException("row of node " + row.nodeId() + " under " + nodeId);
          }
        });
  }

  /** No rows (before the first read): every node is dead. */
  public static LivenessView empty(long nowMillis) {
    return new LivenessView(Map.of(), nowMillis);
  }

  /** The row of {@code nodeId}, whichever process wrote it. */
  public Optional<LivenessRow> row(int nodeId) {
    return Optional.ofNullable(rows.get(nodeId));
  }

  /**
   * The state of process {@code nodeEpoch} of node {@code nodeId}:
   *
   * <ul>
   *   <li>{@link NodeState#DEAD} with no row, or a lapsed one (whatever its epoch), except:
   *   <li>{@link NodeState#SUSPECT} with no row for a process that started less than {@link
   *       #STARTING_MILLIS} before the rows were read, or after (a node that just joined or
   *       restarted: it chose its epoch, its start time, before it wrote its first row, and that
   *       row may not be in this read; epochs come from the nodes' clocks, so one whose clock runs
   *       ahead gets the benefit of the doubt for that long);
   *   <li>{@link NodeState#SUSPECT} when the row is not lapsed but was renewed more than half its
   *       TTL ago, or is an older process's (the one asked about has not renewed as far as this
   *       view knows, but the node id is not dead yet);
   *   <li>{@link NodeState#LIVE} otherwise: a row of that epoch or a newer one (the node restarted
   *       and its new process renews), renewed within half its TTL.
   * </ul>
   */
  public NodeState state(int nodeId, long nodeEpoch) {
    LivenessRow row = rows.get(nodeId);
    if (row == null && nodeEpoch > readMillis - STARTING_MILLIS) {
      // Started just before the read, or after it (its epoch is its start time): its first row,
      // written before it registered, may not be in this read yet.
      return NodeState.SUSPECT;
    }
    if (row == null || row.lapsedAt(nowMillis)) {
      return NodeState.DEAD;
    }
    if (row.nodeEpoch() < nodeEpoch) {
      return NodeState.SUSPECT;
    }
    long sinceRenewal = nowMillis - row.renewedAtMillis();
    return sinceRenewal > row.ttlMillis() / 2 ? NodeState.SUSPECT : NodeState.LIVE;
  }

  /**
   * This view judged {@code elapsedMillis} later: the same rows at a later database time. A holder
   * of an older view ages it with its own monotonic clock, so rows that are not renewed (or no
   * longer read) turn suspect and dead on time.
   */
  public LivenessView later(long elapsedMillis) {
    if (elapsedMillis < 0) {
      throw new IllegalArgumentException("elapsed time is negative: " + elapsedMillis);
    }
    return elapsedMillis == 0
        ? this
        : new LivenessView(rows, nowMillis + elapsedMillis, readMillis);
  }
}
