package io.picomq.server.service;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The loaded streams that can expire, ordered by the earliest time each may expire: what the
 * background sweep looks at, so a sweep costs the streams that are due and not every loaded one
 * (ten thousand loaded streams made the old full scan the largest periodic cost of an idle node).
 *
 * <p>An entry keeps the deadline the stream had when it was queued. Activity only moves a sliding
 * TTL's deadline later and a fixed expiry never moves, so an entry is never late: when it comes due
 * the sweep checks the stream itself and queues it again at its new deadline if activity moved it.
 * Appends and reads therefore never touch this queue.
 *
 * <p>Threading: any thread; {@link #lock} guards the heap and is held for no more than a heap
 * operation.
 */
final class ExpiryQueue<T> {
  private record Due<T>(long atMillis, T item) {}

  private final ReentrantLock lock = new ReentrantLock();

  /** Guarded by {@link #lock}. */
  private final PriorityQueue<Due<T>> heap =
      new PriorityQueue<>((a, b) -> Long.compare(a.atMillis(), b.atMillis()));

  /** Queues {@code item} to be looked at once the clock reaches {@code atMillis}. */
  void add(T item, long atMillis) {
    lock.lock();
    try {
      heap.add(new Due<>(atMillis, item));
    } finally {
      lock.unlock();
    }
  }

  /** Removes and returns the items due at {@code nowMillis}, earliest first. */
  List<T> takeDue(long nowMillis) {
    List<T> due = new ArrayList<>();
    lock.lock();
    try {
      while (!heap.isEmpty() && heap.peek().atMillis() <= nowMillis) {
        due.add(heap.poll().item());
      }
    } finally {
      lock.unlock();
    }
    return due;
  }
}
