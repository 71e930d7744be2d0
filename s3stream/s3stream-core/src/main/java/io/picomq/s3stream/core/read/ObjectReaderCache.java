package io.picomq.s3stream.core.read;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.picomq.s3stream.object.ObjectReader;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;

/**
 * Opened objects (an {@link ObjectReader} holds an object's decoded index), kept for reuse, at most
 * {@code capacity}, by Caffeine (W-TinyLFU: the least recently used of the rarely used go first).
 * Opening an object costs a GET of its footer and index, so concurrent readers of one object share
 * one open (single flight). A failed open is forgotten (Caffeine drops a future that fails), so the
 * next reader tries again.
 *
 * <p>Threading: any thread. Only an incomplete future is put into the cache under Caffeine's
 * compute; the open starts after it and completes outside any lock (a store that answers in the
 * caller's thread would otherwise run the whole GET, and every callback waiting on it, inside the
 * compute). Eviction runs on the caller's thread ({@code executor(Runnable::run)}): a few map
 * operations, no pool hop on the read path.
 */
final class ObjectReaderCache {

  private final AsyncCache<Long, ObjectReader> readers;

  ObjectReaderCache(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
    }
    this.readers = Caffeine.newBuilder().maximumSize(capacity).executor(Runnable::run).buildAsync();
  }

  /**
   * The reader of object {@code objectId}, opened with {@code open} unless it is open or opening.
   *
   * @param open starts opening the object; called at most once per absent object, outside
   *     Caffeine's compute
   */
  CompletableFuture<ObjectReader> get(
      long objectId, LongFunction<CompletableFuture<ObjectReader>> open) {
    CompletableFuture<ObjectReader> opening = new CompletableFuture<>();
    CompletableFuture<ObjectReader> shared = readers.get(objectId, (id, executor) -> opening);
    if (shared != opening) {
      return shared;
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
            opening.completeExceptionally(error);
          } else {
            opening.complete(reader);
          }
        });
    return opening;
  }

  /** The reader of object {@code objectId} if it is open now; never starts an open. */
  Optional<ObjectReader> getIfOpen(long objectId) {
    CompletableFuture<ObjectReader> found = readers.getIfPresent(objectId);
    if (found == null || !found.isDone() || found.isCompletedExceptionally()) {
      return Optional.empty();
    }
    return Optional.of(found.join());
  }

  /** Keeps a reader opened elsewhere, unless one is already kept or opening. */
  void putIfAbsent(ObjectReader reader) {
    readers.get(reader.objectId(), (id, executor) -> CompletableFuture.completedFuture(reader));
  }

  /** Drops the reader of {@code objectId}, kept or opening; a later get opens it afresh. */
  void invalidate(long objectId) {
    readers.asMap().remove(objectId);
  }

  /** How many readers are kept or opening. */
  int size() {
    readers.synchronous().cleanUp();
    return (int) readers.synchronous().estimatedSize();
  }
}
