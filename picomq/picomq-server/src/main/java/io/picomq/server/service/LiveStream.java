package io.picomq.server.service;

import io.picomq.s3stream.api.Stream;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One name's state on the node serving it: its registry entry, its engine stream, the tails and its
 * waiters.
 *
 * <p>Threading: {@link #lock} guards every non-final, non-volatile field. It is held only for
 * validation and bookkeeping, never across I/O: an append is handed to the engine under it (the
 * engine copies the payload and assigns offsets at once) and waited for outside it, so pipelined
 * appends share a WAL flush. Futures are completed after the lock is released.
 */
final class LiveStream {
  final String name;
  final Stream own;
  final ReentrantLock lock = new ReentrantLock();

  /** Guarded by lock: the registry entry as this node knows it (ahead of the KV while writing). */
  Registration registration;

  /** Guarded by lock: the seq the next append gets. */
  long assignedTail;

  /** Any thread: every seq below it is durable and readable. */
  volatile long confirmedTail;

  /** Guarded by lock: the timestamp of the last appended record (0 before any). */
  long lastTimestampMillis;

  /** Any thread: the last activity, for a sliding TTL. */
  volatile long activityMillis;

  /** Guarded by lock: deleted for good (its KV entry is being or was removed). */
  boolean removed;

  /**
   * Guarded by lock: an append failed or was refused, so {@link #assignedTail} and {@link
   * #registration} may hold effects that never became durable. Nothing more is appended through
   * this instance; the next request loads the name afresh (see {@link Appender}).
   */
  boolean forgotten;

  /**
   * Guarded by lock: the stream is being handed to another node ({@link Handoffs}): no append is
   * taken any more; the instance goes once the engine stream is closed.
   */
  boolean handingOff;

  /** Guarded by lock: completes once the last registry write proposed for this name applied. */
  CompletableFuture<Void> persisted = CompletableFuture.completedFuture(null);

  /** Guarded by lock: completes once the last append handed to the engine is durable. */
  CompletableFuture<Void> lastAppend = CompletableFuture.completedFuture(null);

  /** Guarded by lock: the {@code stampedThrough} of the last entry write proposed (or loaded). */
  long stampedThroughProposed;

  /** Guarded by lock: payload bytes appended since that entry write. */
  long unstampedBytes;

  /**
   * Any thread: the last read's records. Live readers of a stream all read the same range when an
   * append wakes them; the first reads the engine, the others take its records. Records in a range
   * below the tail never change, so a match on the range and the caps is a match on the answer.
   * Only small reads that reach the tail are kept (see {@link #worthKeeping}): that is what live
   * readers ask for, and ten thousand loaded streams must not each hold a large catch-up read.
   */
  volatile RecentRead recentRead;

  /** Records {@code [fromSeq, ...)} read with these caps while the tail was {@code tailSeq}. */
  record RecentRead(
      long streamId,
      long fromSeq,
      long tailSeq,
      int maxRecords,
      long maxBytes,
      List<StreamRecord> records) {
    RecentRead {
      records = List.copyOf(records);
    }

    private static final long MAX_BYTES = 64 << 10;

    /** Whether {@code records}, read from {@code from} with the tail at {@code tail}, qualify. */
    static boolean worthKeeping(long from, long tail, List<StreamRecord> records) {
      if (from + records.size() != tail) {
        return false;
      }
      long bytes = 0;
      for (StreamRecord record : records) {
        bytes += record.body().length;
      }
      return bytes <= MAX_BYTES;
    }

    boolean matches(long id, long from, long tail, int max, long bytes) {
      return streamId == id
          && fromSeq == from
          && tailSeq == tail
          && maxRecords == max
          && maxBytes == bytes;
    }
  }

  /** Guarded by lock. */
  final List<Waiter> waiters = new ArrayList<>();

  record Waiter(long seq, CompletableFuture<Void> signal) {}

  LiveStream(
      String name,
      Stream own,
      Registration registration,
      long tail,
      long lastTimestamp,
      long activityMillis) {
    this.name = name;
    this.own = own;
    this.registration = registration;
    this.assignedTail = tail;
    this.confirmedTail = tail;
    this.lastTimestampMillis = lastTimestamp;
    this.activityMillis = activityMillis;
  }

  /** Under lock: what a caller is told about the stream. */
  StreamDescription info() {
    return new StreamDescription(
        name,
        registration.streamId(),
        registration.contentType(),
        registration.expiry(),
        Expirations.expiresAt(registration.expiry(), activityMillis),
        Math.min(registration.startSeq(), confirmedTail),
        confirmedTail,
        closedAndSettled());
  }

  /** Any thread: an access at {@code nowMillis}, for a sliding TTL (activity never goes back). */
  void touch(long nowMillis) {
    activityMillis = Math.max(activityMillis, nowMillis);
  }

  /** Under lock: sealed and everything appended is durable, so readers may see the end. */
  boolean closedAndSettled() {
    return registration.closed() && confirmedTail == assignedTail;
  }

  /** Under lock: removes and returns the waiters that may wake now. */
  List<CompletableFuture<Void>> dueWaiters() {
    boolean all = removed || registration.softDeleted() || closedAndSettled();
    List<CompletableFuture<Void>> due = new ArrayList<>();
    waiters.removeIf(
        waiter -> {
          if (all || waiter.seq() < confirmedTail) {
            due.add(waiter.signal());
            return true;
          }
          return false;
        });
    return due;
  }
}
