package io.picomq.s3stream.core.read;

import io.picomq.s3stream.object.ObjectReader;
import java.util.LinkedHashMap;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;

/**
 * Opened objects (an {@link ObjectReader} holds an object's decoded index), kept for reuse, at most
 * {@code capacity}, least recently used dropped first. Opening an object costs a GET of its footer
 * and index, so concurrent readers of one object share one open (single flight). A failed open is
 * forgotten, so the next reader tries again.
 *
 * <p>Threading: any thread; a lock guards the table, and opens start and complete outside it.
 */
final class ObjectReaderCache {

  private final int capacity;
  private final ReentrantLock lock = new ReentrantLock();
  // Guarded by lock. Access order: the eldest entry is the least recently used.
  private final LinkedHashMap<Long, CompletableFuture<ObjectReader>> readers =
      new LinkedHashMap<>(64, 0.75f, true);

  ObjectReaderCache(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
    }
    this.capacity = capacity;
  }

  /**
   * The reader of object {@code objectId}, opened with {@code open} unless it is open or opening.
   *
   * @param open starts opening the object; called at most once per absent object, outside the lock
   */
  CompletableFuture<ObjectReader> get(
      long objectId, LongFunction<CompletableFuture<ObjectReader>> open) {
    CompletableFuture<ObjectReader> opening = new CompletableFuture<>();
    lock.lock();
    try {
      CompletableFuture<ObjectReader> existing = readers.putIfAbsent(objectId, opening);
      if (existing != null) {
        return existing;
      }
      trim();
    } finally {
      lock.unlock();
    }
    CompletableFuture<ObjectReader> opened;
    try {
      opened = open.apply(objectId);
    } catch (RuntimeException e) {
      opened = CompletableFuture.failedFuture(e);
    }
    opened.whenComplete(
        (reader, error) -> {
          if (error != null) {
            forget(objectId, opening);
            opening.completeExceptionally(error);
          } else {
            opening.complete(reader);
          }
        });
    return opening;
  }

  /** The reader of object {@code objectId} if it is open now; never starts an open. */
  Optional<ObjectReader> getIfOpen(long objectId) {
    CompletableFuture<ObjectReader> found;
    lock.lock();
    try {
      found = readers.get(objectId);
    } finally {
      lock.unlock();
    }
    if (found == null || !found.isDone() || found.isCompletedExceptionally()) {
      return Optional.empty();
    }
    return Optional.of(found.join());
  }

  /** Keeps a reader opened elsewhere, unless one is already kept or opening. */
  void putIfAbsent(ObjectReader reader) {
    lock.lock();
    try {
      readers.putIfAbsent(reader.objectId(), CompletableFuture.completedFuture(reader));
      trim();
    } finally {
      lock.unlock();
    }
  }

  /** Drops the reader of {@code objectId}, kept or opening; a later get opens it afresh. */
  void invalidate(long objectId) {
    lock.lock();
    try {
      readers.remove(objectId);
    } finally {
      lock.unlock();
    }
  }

  /** How many readers are kept or opening. */
  int size() {
    lock.lock();
    try {
      return readers.size();
    } finally {
      lock.unlock();
    }
  }

  private void forget(long objectId, CompletableFuture<ObjectReader> opening) {
    lock.lock();
    try {
      readers.remove(objectId, opening);
    } finally {
      lock.unlock();
    }
  }

  /** Drops the least recently used entries beyond the capacity. Under the lock. */
  private void trim() {
    var it = readers.values().iterator();
    while (readers.size() > capacity && it.hasNext()) {
      it.next();
      it.remove();
    }
  }
}
