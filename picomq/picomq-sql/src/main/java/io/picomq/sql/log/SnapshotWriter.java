package io.picomq.sql.log;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes snapshots off the tailer thread: encoding a large state takes long, and states are
 * immutable, so the tailer hands over a view and keeps applying. At most one snapshot is being
 * written; views offered meanwhile are coalesced, and when the write finishes the newest of them is
 * written next (older ones would be replaced by it anyway).
 *
 * <p>Every node offers a snapshot at the same indexes. The first to store it wins; the others find
 * a snapshot at least as new already stored and skip the encoding.
 *
 * <p>A snapshot costs in proportion to the state, so a large state is snapshotted less often: one
 * whose stored snapshot is n times {@link LogOptions#snapshotBytesPerInterval()} waits n offers (n
 * times {@link LogOptions#snapshotEveryRows()} rows) for the next. Its cost per row then stays the
 * same as the state grows, and so does the replay a restart makes, relative to the snapshot it
 * loads. The rule reads only the stored snapshot, so every node decides alike. Under a stream of
 * creates on SQLite, writing a 3 MB snapshot every 1,024 rows held the database's write lock long
 * enough to set the p99 of every write behind it. {@link SnapshotTable} stores it in chunks, so no
 * single write holds that lock for the whole snapshot.
 */
final class SnapshotWriter<S> {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotWriter.class);

  private final ReplicatedStateMachine<S, ?, ?> machine;
  private final SnapshotTable table;
  private final long everyRows;
  private final long bytesPerInterval;
  private final ThreadFactory threads;
  private final String name;
  private final ReentrantLock lock = new ReentrantLock();

  /** Guarded by {@code lock}: the thread writing snapshots, if any. */
  private Thread writing;

  /** Guarded by {@code lock}: the newest view offered while a snapshot was being written. */
  private View<S> next;

  /** Guarded by {@code lock}. */
  private boolean closed;

  SnapshotWriter(ReplicatedStateMachine<S, ?, ?> machine, SnapshotTable table, LogOptions options) {
    this.machine = machine;
    this.table = table;
    this.everyRows = options.snapshotEveryRows();
    this.bytesPerInterval = options.snapshotBytesPerInterval();

    this.threads = options.threadFactory();
    this.name = options.name();
  }

  void offer(View<S> view) {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      if (writing != null) {
        next = view;
        return;
      }
      writing = threads.newThread(() -> writeFrom(view));
      writing.setName("picomq-log-snapshot-" + name);
      writing.start();
    } finally {
      lock.unlock();
    }
  }

  private void writeFrom(View<S> first) {
    View<S> view = first;
    try {
      while (view != null) {
        write(view);
        view = takeNext();
      }
    } finally {
      if (view != null) {
        // write() threw (a bug in encodeSnapshot): let a later offer start afresh.
        takeNext();
      }
    }
  }

  /** The view to write next, or null, in which case this thread is done. */
  private View<S> takeNext() {
    lock.lock();
    try {
      View<S> view = closed ? null : next;
      next = null;
      if (view == null) {
        writing = null;
      }
      return view;
    } finally {
      lock.unlock();
    }
  }

  private void write(View<S> view) {
    long index = view.appliedIndex();
    try {
      SnapshotTable.Stored stored = table.stored();
      if (index - stored.index() < rowsDue(stored.bytes(), everyRows, bytesPerInterval)) {
        return; // as new a snapshot is stored, or the one stored is recent for its size
      }
      long started = System.nanoTime();
      byte[] payload = SnapshotCodec.encode(index, machine.encodeSnapshot(view.state()));
      long deleted = table.writeAndTruncate(index, payload);
      if (deleted >= 0) {
        LOG.info(
            "[{}] wrote the snapshot through row {} ({} bytes, {} ms) and truncated {} rows",
            name,
            index,
            payload.length,
            Duration.ofNanos(System.nanoTime() - started).toMillis(),
            deleted);
      }
    } catch (SQLException e) {
      LOG.warn(
          "[{}] writing the snapshot through row {} failed; the next one retries", name, index, e);
    }
  }

  /** How many rows after a stored snapshot of {@code storedBytes} the next one is due. */
  static long rowsDue(long storedBytes, long everyRows, long bytesPerInterval) {
    long intervals = Math.max(1, Math.ceilDiv(storedBytes, bytesPerInterval));
    return intervals > Long.MAX_VALUE / everyRows ? Long.MAX_VALUE : intervals * everyRows;
  }

  /** Stops taking offers and waits for a snapshot being written. */
  void close() throws InterruptedException {
    Thread inFlight;
    lock.lock();
    try {
      closed = true;
      inFlight = writing;
    } finally {
      lock.unlock();
    }
    if (inFlight != null) {
      inFlight.join(Duration.ofSeconds(30));
    }
  }
}
