package io.picomq.sql.log;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: takes queued proposals, packs up to {@link LogOptions#maxCommandsPerRow()} of them
 * into one row, and appends the row optimistically at the next index, retrying higher when another
 * writer took it. One row is in flight at a time; proposals arriving meanwhile wait and form the
 * next row, so the rows grow with the load.
 *
 * <p>Threading: {@link #run()} is the flusher thread's whole life; every field without a comment is
 * immutable, the others are owned by that thread.
 *
 * <p>A failed insert is ambiguous: the row may be committed even though the driver reported an
 * error. The flusher then reads the row at the index it tried: its own payload there means done;
 * another row there, or no row and a last index below it, means retry; no row but later rows means
 * the row was truncated meanwhile, and the outcome is reported as unknown. Each payload carries the
 * writer id and batch sequence, so "its own payload" is unambiguous.
 */
final class Flusher<R> implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);

  private final LogTable table;
  private final BlockingQueue<Proposal<R>> queue;
  private final Proposal<R> wakeSignal;
  private final PendingBatches<R> pending;
  private final LogHealth health;
  private final LongSupplier appliedIndex;
  private final Runnable nudgeTailer;
  private final long writerId;
  private final LogOptions options;

  /** Owner thread: the last batch sequence used. */
  private long batchSequence;

  /** Owner thread: the highest index this writer knows to exist. */
  private long knownLastIndex;

  /** Owner thread: a proposal taken from the queue that did not fit the previous row. */
  private Proposal<R> carried;

  Flusher(
      LogTable table,
      BlockingQueue<Proposal<R>> queue,
      Proposal<R> wakeSignal,
      PendingBatches<R> pending,
      LogHealth health,
      LongSupplier appliedIndex,
      Runnable nudgeTailer,
      long writerId,
      LogOptions options) {
    this.table = table;
    this.queue = queue;
    this.wakeSignal = wakeSignal;
    this.pending = pending;
    this.health = health;
    this.appliedIndex = appliedIndex;
    this.nudgeTailer = nudgeTailer;
    this.writerId = writerId;
    this.options = options;
  }

  @Override
  public void run() {
    try {
      while (!health.isClosing()) {
        List<Proposal<R>> group = nextGroup();
        Optional<MetadataLogException> failure = health.failure();
        if (failure.isPresent()) {
          group.forEach(proposal -> proposal.result().completeExceptionally(failure.get()));
        } else if (!group.isEmpty()) {
          write(group);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (carried != null) {
      health.failure().ifPresent(carried.result()::completeExceptionally);
    }
  }

  /**
   * Blocks for the first proposal, then takes whatever else is queued that fits one row. Proposals
   * whose future is already done (cancelled or timed out by the proposer) are dropped: a proposal
   * withdrawn before its row is written never takes effect.
   */
  private List<Proposal<R>> nextGroup() throws InterruptedException {
    List<Proposal<R>> group = new ArrayList<>();
    long bytes = 0;
    Proposal<R> next = carried != null ? carried : queue.take();
    carried = null;
    while (next != null && next != wakeSignal) {
      if (!next.result().isDone()) {
        if (!group.isEmpty() && bytes + next.command().length > options.maxRowBytes()) {
          carried = next;
          break;
        }
        group.add(next);
        bytes += next.command().length;
        if (group.size() == options.maxCommandsPerRow()) {
          break;
        }
      }
      next = queue.poll();
    }
    return group;
  }

  private void write(List<Proposal<R>> group) throws InterruptedException {
    long sequence = ++batchSequence;
    List<byte[]> commands = new ArrayList<>(group.size());
    List<CompletableFuture<R>> results = new ArrayList<>(group.size());
    for (Proposal<R> proposal : group) {
      commands.add(proposal.command());
      results.add(proposal.result());
    }
    Batch<R> batch = new Batch<>(sequence, results);
    pending.register(batch);
    append(batch, RowCodec.encode(new LogRow(writerId, sequence, commands)));
  }

  private void append(Batch<R> batch, byte[] payload) throws InterruptedException {
    long index = Math.max(knownLastIndex, appliedIndex.getAsLong()) + 1;
    boolean uncertain = false;
    boolean failing = false;
    RetryPauses backoff = new RetryPauses(options.maxRetryBackoff());
    while (true) {
      Optional<MetadataLogException> failure = health.failure();
      if (failure.isPresent()) {
        pending.fail(batch, failure.get());
        return;
      }
      if (batch.settled()) {
        return;
      }
      try {
        if (uncertain) {
          switch (checkAmbiguousWrite(index, payload)) {
            case Ambiguity.Written written -> {
              written(batch, index);
              return;
            }
            case Ambiguity.Unknowable unknowable -> {
              pending.fail(
                  batch,
                  new ProposalOutcomeUnknownException(
                      "writing row "
                          + index
                          + " failed ambiguously and the row was truncated before it could be"
                          + " checked; the command took effect at most once"));
              return;
            }
            case Ambiguity.NotWritten notWritten -> {
              uncertain = false;
              knownLastIndex = notWritten.lastIndex();
              index = notWritten.lastIndex() + 1;
            }
          }
        }
        uncertain = true;
        boolean appended = table.append(index, payload);
        uncertain = false;
        health.databaseAnswered(true);
        if (failing) {
          LOG.info("[{}] metadata log writes succeed again", options.name());
          failing = false;
        }
        if (appended) {
          written(batch, index);
          return;
        }
        knownLastIndex = table.lastIndex();
        LOG.debug(
            "[{}] row {} was taken; the log ends at {}", options.name(), index, knownLastIndex);
        index = knownLastIndex + 1;
      } catch (SQLException e) {
        health.databaseFailed(true, e);
        if (!failing) {
          LOG.warn("[{}] writing metadata log row {} failed; retrying", options.name(), index, e);
          failing = true;
        }
        health.pause(backoff.next());
      }
    }
  }

  /** What the table says about an insert at {@code index} whose outcome was not reported. */
  private sealed interface Ambiguity {
    /** Our payload is the row: the insert committed. */
    record Written() implements Ambiguity {}

    /** Another row is there, or none and the log ends below: try again after {@code lastIndex}. */
    record NotWritten(long lastIndex) implements Ambiguity {}

    /** No row there but later rows exist: it was truncated, so nobody can tell whose it was. */
    record Unknowable() implements Ambiguity {}
  }

  private Ambiguity checkAmbiguousWrite(long index, byte[] payload) throws SQLException {
    Optional<byte[]> stored = table.read(index);
    if (stored.isPresent() && Arrays.equals(stored.get(), payload)) {
      return new Ambiguity.Written();
    }
    long last = table.lastIndex();
    if (stored.isEmpty() && last >= index) {
      return new Ambiguity.Unknowable();
    }
    return new Ambiguity.NotWritten(last);
  }

  private void written(Batch<R> batch, long index) {
    LOG.debug("[{}] wrote batch {} as row {}", options.name(), batch.sequence(), index);
    knownLastIndex = Math.max(knownLastIndex, index);
    pending.written(batch, index);
    nudgeTailer.run();
  }
}
