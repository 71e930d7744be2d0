package io.picomq.s3stream.pgwal;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.Recovery;
import io.picomq.s3stream.wal.SealedBatch;
import io.picomq.s3stream.wal.SerialExecutor;
import io.picomq.s3stream.wal.WalAppendResult;
import io.picomq.s3stream.wal.WalBatcher;
import io.picomq.s3stream.wal.WalConfig;
import io.picomq.s3stream.wal.WalFailedException;
import io.picomq.s3stream.wal.WalFencedException;
import io.picomq.s3stream.wal.WalStatus;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's WAL in Postgres tables ({@code s3stream/specification/wal-postgres.md}).
 *
 * <p>Design: the same group commit as the object WAL ({@link WalBatcher} fixes offsets and seals
 * batches on the appender's thread), then {@link BatchCommitter} on the owner executor inserts each
 * batch as one row of its slot table, in its own transaction, and acknowledges in offset order.
 * {@link WalDatabase} holds the SQL. Offsets are dense: each batch starts where the previous one
 * ended, across epochs too.
 *
 * <p>Fencing is the node's row in {@code pico_wal_node}: start claims it for this epoch, and every
 * insert and truncation checks the epoch there in the same statement or transaction. Start also
 * runs the start-up checks ({@link StartupChecks}); reset empties the slot tables.
 */
final class PostgresWal implements WriteAheadLog {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresWal.class);

  private enum Phase {
    NEW,
    STARTING,
    STARTED,
    RECOVERING,
    RECOVERED,
    RESETTING,
    OPEN
  }

  private final int nodeId;
  private final long epoch;
  private final WalDatabase database;
  private final DatabaseCalls calls;
  private final SerialExecutor owner;
  private final WalBatcher batcher;
  private final BatchCommitter committer;
  private final Consumer<PostgresWal> onStop;

  /** The lifecycle step reached; moved by the one caller of the lifecycle methods. */
  private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.NEW);

  private final long capacityBytes;

  /** Set by start, read by recover and reset (which come after start completed). */
  private volatile StartedNode started;

  /**
   * @param onStop told once the WAL stops for good (closed, fenced, failed), to forget it
   */
  PostgresWal(
      int nodeId,
      long epoch,
      WalDatabase database,
      DatabaseCalls calls,
      WalConfig config,
      RingGeometry ring,
      Scheduler scheduler,
      Executor executor,
      Consumer<PostgresWal> onStop) {
    RingGeometry.checkCapacity(ring.segmentBytes(), ring.segments(), config.maxUnflushedBytes());
    this.nodeId = nodeId;
    this.epoch = epoch;
    this.database = database;
    this.calls = calls;
    this.owner = new SerialExecutor(executor);
    this.batcher = new WalBatcher(config, scheduler, this::drainOnOwner, Long::sum);
    this.committer =
        new BatchCommitter(
            database, calls, batcher, owner, ring, config.maxInflightUploadCount(), epoch);
    this.onStop = onStop;
    this.capacityBytes = ring.capacityBytes();
  }

  @Override
  public CompletableFuture<Void> start() {
    move(Phase.NEW, Phase.STARTING, "start()");
    return calls
        .call("starting the " + database, database::start, this::giveUp)
        .whenComplete(
            (node, error) -> {
              if (error == null) {
                started = node;
                committer.begin(node.nextOffset(), node.trimOffset());
                phase.set(Phase.STARTED);
                LOG.info(
                    "{} claimed; trim offset {}, appends continue at {}",
                    database,
                    node.trimOffset(),
                    node.nextOffset());
              } else if (Causes.unwrap(error) instanceof WalFencedException fenced) {
                stopOnOwner(new WalStatus.Fenced(epoch, fenced.getMessage()));
              } else {
                stopOnOwner(new WalStatus.Closed("start failed: " + Causes.unwrap(error)));
              }
            })
        .thenAccept(node -> {});
  }

  @Override
  public CompletableFuture<Recovery> recover() {
    move(Phase.STARTED, Phase.RECOVERING, "recover()");
    StartedNode node = started;
    return calls
        .call("recovering the " + database, c -> database.recover(c, node), this::giveUp)
        .whenComplete(
            (recovery, error) -> {
              phase.set(Phase.RECOVERED);
              if (recovery != null) {
                LOG.info(
                    "{} recovered {} records above trim offset {}{}",
                    database,
                    recovery.records().size(),
                    recovery.trimOffset(),
                    recovery.stoppedBy().map(why -> "; stopped early: " + why).orElse(""));
              }
            });
  }

  @Override
  public CompletableFuture<Void> reset() {
    if (!phase.compareAndSet(Phase.RECOVERED, Phase.RESETTING)) {
      move(Phase.STARTED, Phase.RESETTING, "reset()");
    }
    StartedNode node = started;
    return calls
        .<Void>call(
            "resetting the " + database,
            c -> {
              database.reset(c, node);
              return null;
            },
            this::giveUp)
        .whenComplete(
            (ignored, error) -> {
              if (error == null) {
                // A close() during the reset leaves the batcher stopped: open() then refuses, and
                // the reset's future fails saying so.
                committer.begin(node.nextOffset(), node.nextOffset() - 1);
                batcher.open(node.nextOffset(), node.nextOffset() - 1);
                phase.set(Phase.OPEN);
              } else if (Causes.unwrap(error) instanceof WalFencedException fenced) {
                stopOnOwner(new WalStatus.Fenced(epoch, fenced.getMessage()));
              } else {
                Throwable cause = Causes.unwrap(error);
                stopOnOwner(
                    new WalStatus.Failed(
                        new WalFailedException("resetting the " + database + " failed", cause)));
              }
            });
  }

  @Override
  public WalAppendResult append(ByteBuf body) {
    Objects.requireNonNull(body, "body");
    return batcher.append(body);
  }

  @Override
  public long confirmOffset() {
    return committer.confirmOffset();
  }

  /** The ring's: {@code (segments - 1) * segmentBytes}. */
  @Override
  public long capacityBytes() {
    return capacityBytes;
  }

  @Override
  public CompletableFuture<Void> trim(long offset) {
    long confirmed = committer.confirmOffset();
    if (offset >= confirmed) {
      throw new IllegalArgumentException(
          "trim(" + offset + ") would pass the confirm offset " + confirmed);
    }
    if (offset <= committer.persistedTrimOffset()) {
      return CompletableFuture.completedFuture(null);
    }
    WalStatus status = batcher.status();
    if (!(status instanceof WalStatus.Open)) {
      return CompletableFuture.failedFuture(status.error());
    }
    CompletableFuture<Void> trimmed = new CompletableFuture<>();
    owner.execute(() -> committer.trim(offset, trimmed));
    return trimmed;
  }

  @Override
  public void fence(String reason) {
    stopOnOwner(new WalStatus.Fenced(epoch, reason));
  }

  @Override
  public CompletableFuture<Void> shutdownGracefully() {
    CompletableFuture<Void> idle = new CompletableFuture<>();
    batcher.beginClosing();
    owner.execute(() -> committer.whenIdle(idle));
    return idle.whenComplete((ignored, error) -> stopOnOwner(new WalStatus.Closed("shut down")));
  }

  @Override
  public void close() {
    stopOnOwner(new WalStatus.Closed("closed"));
  }

  /** Framed bytes appended and not yet stored. */
  long unflushedBytes() {
    return batcher.unflushedBytes();
  }

  @Override
  public String toString() {
    return "PostgresWal[node " + nodeId + ", epoch " + epoch + ", " + batcher.status() + "]";
  }

  /** Lifecycle calls stop retrying once the WAL is closed, fenced or failed. */
  private Optional<RuntimeException> giveUp() {
    WalStatus status = batcher.status();
    return status.terminal() ? Optional.of(status.error()) : committer.stopError();
  }

  private void drainOnOwner() {
    owner.execute(committer::drain);
  }

  private void stopOnOwner(WalStatus terminal) {
    SealedBatch leftover = batcher.stop(terminal);
    owner.execute(
        () -> {
          committer.stop(terminal, leftover);
          onStop.accept(this);
        });
  }

  private void move(Phase from, Phase to, String what) {
    if (!phase.compareAndSet(from, to)) {
      throw new IllegalStateException(
          what + " needs the WAL in phase " + from + ", it is in " + phase.get());
    }
  }
}
