package io.picomq.sql.log;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the log in index order and applies each row: decode every command of the row first, then
 * apply them one by one, publish the resulting view, settle this node's proposals in the row, and
 * offer a snapshot at each interval.
 *
 * <p>Rows are contiguous (see {@link LogTable}), so when the next stored row is past the one the
 * tailer needs, the rows between were truncated under a snapshot: the tailer installs the stored
 * snapshot and continues after it. If no snapshot covers the missing row, or a row cannot be
 * decoded or applied, the sink stops for good: skipping a row would give this node a state no other
 * node has.
 *
 * <p>Threading: {@link #run()} is the tailer thread's whole life. {@link #nudge()} may be called
 * from any thread to end an idle wait early.
 */
final class Tailer<S, C, R> implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(Tailer.class);

  private final ReplicatedStateMachine<S, C, R> machine;
  private final LogTable log;
  private final SnapshotTable snapshots;
  private final ViewPublisher<S> views;
  private final PendingBatches<R> pending;
  private final SnapshotWriter<S> snapshotWriter;
  private final LogHealth health;
  private final Consumer<LogStoppedException> stopSink;
  private final CompletableFuture<View<S>> caughtUp;
  private final long writerId;
  private final LogOptions options;
  private final Semaphore wake = new Semaphore(0);

  Tailer(
      ReplicatedStateMachine<S, C, R> machine,
      LogTable log,
      SnapshotTable snapshots,
      ViewPublisher<S> views,
      PendingBatches<R> pending,
      SnapshotWriter<S> snapshotWriter,
      LogHealth health,
      Consumer<LogStoppedException> stopSink,
      CompletableFuture<View<S>> caughtUp,
      long writerId,
      LogOptions options) {
    this.machine = machine;
    this.log = log;
    this.snapshots = snapshots;
    this.views = views;
    this.pending = pending;
    this.snapshotWriter = snapshotWriter;
    this.health = health;
    this.stopSink = stopSink;
    this.caughtUp = caughtUp;
    this.writerId = writerId;
    this.options = options;
  }

  /** Ends an idle wait now: a local row was just written, or the log is closing. */
  void nudge() {
    wake.release();
  }

  @Override
  public void run() {
    RetryPauses backoff = new RetryPauses(options.maxRetryBackoff());
    boolean prepared = false;
    boolean failing = false;
    try {
      while (running()) {
        try {
          if (!prepared) {
            prepare();
            prepared = true;
          } else {
            tailOnce();
          }
          backoff.reset();
          health.databaseAnswered(false);
          if (failing) {
            LOG.info("[{}] metadata log reads succeed again", options.name());
            failing = false;
          }
        } catch (SQLException e) {
          health.databaseFailed(false, e);
          if (!failing) {
            LOG.warn("[{}] reading the metadata log failed; retrying", options.name(), e);
            failing = true;
          }
          health.pause(backoff.next());
        }
      }
    } catch (LogDecodeException e) {
      // The stored snapshot's manifest or chunks (read at start or to cross a truncation).
      stopSink.accept(
          new LogStoppedException(
              views.current().appliedIndex() + 1,
              LogStoppedException.Reason.UNDECODABLE_SNAPSHOT,
              e.getMessage(),
              e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean running() {
    return !health.isClosing() && health.failure().isEmpty();
  }

  /** Installs the stored snapshot, if any, and starts waiting for the rows present now. */
  private void prepare() throws SQLException, LogDecodeException {
    Optional<StoredRow> snapshot = snapshots.read();
    if (snapshot.isPresent() && !install(snapshot.get())) {
      return;
    }
    long target = log.lastIndex();
    views
        .await(target, null)
        .whenComplete(
            (view, failure) -> {
              if (failure != null) {
                caughtUp.completeExceptionally(failure);
              } else {
                caughtUp.complete(view);
              }
            });
  }

  private void tailOnce() throws SQLException, InterruptedException, LogDecodeException {
    List<StoredRow> rows = log.readAfter(views.current().appliedIndex(), options.readBatchRows());
    for (StoredRow row : rows) {
      long next = views.current().appliedIndex() + 1;
      if (row.index() > next) {
        reinstall(next, row.index());
        return;
      }
      if (!apply(row)) {
        return;
      }
    }
    if (rows.size() < options.readBatchRows()) {
      // Reached the end of the log as it was when read: idle until the poll interval passes or
      // a local write (or close) wakes us.
      if (wake.tryAcquire(options.pollInterval().toNanos(), TimeUnit.NANOSECONDS)) {
        wake.drainPermits();
      }
    }
  }

  /** Rows from {@code missing} up to {@code found - 1} are gone: cross them on the snapshot. */
  private void reinstall(long missing, long found) throws SQLException, LogDecodeException {
    Optional<StoredRow> snapshot = snapshots.read();
    if (snapshot.isEmpty() || snapshot.get().index() < missing) {
      stopSink.accept(
          new LogStoppedException(
              missing,
              LogStoppedException.Reason.MISSING,
              "the next stored row is "
                  + found
                  + " and the snapshot "
                  + snapshot.map(row -> "ends at row " + row.index()).orElse("does not exist"),
              null));
      return;
    }
    if (install(snapshot.get())) {
      LOG.info(
          "[{}] rows {}..{} were truncated; reinstalled the snapshot through row {}",
          options.name(),
          missing,
          found - 1,
          snapshot.get().index());
    }
  }

  private boolean install(StoredRow snapshot) {
    S state;
    try {
      state =
          machine.decodeSnapshot(
              SnapshotCodec.decode(snapshot.index(), snapshot.payload()).state());
    } catch (LogDecodeException e) {
      stopSink.accept(
          new LogStoppedException(
              snapshot.index(),
              LogStoppedException.Reason.UNDECODABLE_SNAPSHOT,
              e.getMessage(),
              e));
      return false;
    }
    pending.reinstalled(snapshot.index());
    views.publish(new View<>(snapshot.index(), state));
    return true;
  }

  private boolean apply(StoredRow row) {
    LogRow decoded;
    List<C> commands;
    try {
      decoded = RowCodec.decode(row.payload());
      commands = new ArrayList<>(decoded.commands().size());
      for (byte[] command : decoded.commands()) {
        commands.add(machine.decodeCommand(command));
      }
    } catch (LogDecodeException e) {
      stopSink.accept(
          new LogStoppedException(
              row.index(), LogStoppedException.Reason.UNDECODABLE_ROW, e.getMessage(), e));
      return false;
    }
    S state = views.current().state();
    List<R> results = new ArrayList<>(commands.size());
    try {
      for (C command : commands) {
        Transition<S, R> applied = machine.apply(state, command);
        state = applied.state();
        results.add(applied.result());
      }
    } catch (RuntimeException e) {
      stopSink.accept(
          new LogStoppedException(
              row.index(), LogStoppedException.Reason.APPLY_FAILED, e.toString(), e));
      return false;
    }
    View<S> view = new View<>(row.index(), state);
    views.publish(view);
    if (decoded.writerId() == writerId) {
      pending.applied(decoded.batchSequence(), results);
    }
    if (row.index() % options.snapshotEveryRows() == 0) {
      snapshotWriter.offer(view);
    }
    return true;
  }
}
