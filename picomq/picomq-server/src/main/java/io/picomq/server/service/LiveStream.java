package io.picomq.server.service;

import io.picomq.s3stream.api.Stream;
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

  /** Guarded by lock: completes once the last registry write proposed for this name applied. */
  CompletableFuture<Void> persisted = CompletableFuture.completedFuture(null);

  /** Guarded by lock: completes once the last append handed to the engine is durable. */
  CompletableFuture<Void> lastAppend = CompletableFuture.completedFuture(null);

  /** Guarded by lock: the {@code stampedThrough} of the last entry write proposed (or loaded). */
  long stampedThroughProposed;

  /** Guarded by lock: payload bytes appended since that entry write. */
  long unstampedBytes;

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
