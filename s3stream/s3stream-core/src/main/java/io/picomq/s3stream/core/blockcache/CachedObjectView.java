package io.picomq.s3stream.core.blockcache;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectRange;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The block cache seen as an {@link ObjectStore}, for code that reads an object through a store (an
 * {@code ObjectReader} opening an object reads its footer and index this way). Reads are served
 * from pages; writes, listings and deletes go to the real store, and a put or delete drops the
 * cached pages of its keys.
 *
 * <p>A view is made for one object, whose size it knows, so pages of that object never need a GET
 * to find where it ends. Other keys read through the view (the component objects a composite object
 * points into) are paged with their size unknown ({@link BlockCache#read}).
 *
 * <p>A {@link #cachedOnly} view never touches storage: a read of bytes not all in memory fails with
 * {@link PageNotCachedException}. The view records whether any of its reads touched storage.
 *
 * <p>Buffers follow {@link ObjectStore}: a get hands the caller a fresh buffer to release. Closing
 * a view closes nothing; the cache and the store belong to their creator. Thread-safe.
 */
public final class CachedObjectView implements ObjectStore {

  private final BlockCache cache;
  private final String key;
  private final long sizeBytes;
  private final boolean cachedOnly;
  private final AtomicBoolean touchedStorage = new AtomicBoolean();

  private CachedObjectView(BlockCache cache, String key, long sizeBytes, boolean cachedOnly) {
    this.cache = Objects.requireNonNull(cache, "cache");
    this.key = Objects.requireNonNull(key, "key");
    if (sizeBytes < 0) {
      throw new IllegalArgumentException("size of " + key + " must be >= 0: " + sizeBytes);
    }
    this.sizeBytes = sizeBytes;
    this.cachedOnly = cachedOnly;
  }

  /** A view of the object at {@code key}, of {@code sizeBytes} bytes, that loads missing pages. */
  public static CachedObjectView of(BlockCache cache, String key, long sizeBytes) {
    return new CachedObjectView(cache, key, sizeBytes, false);
  }

  /** A view of the object at {@code key} that only serves bytes already in memory. */
  public static CachedObjectView cachedOnly(BlockCache cache, String key, long sizeBytes) {
    return new CachedObjectView(cache, key, sizeBytes, true);
  }

  /** Whether a read through this view needed storage (a GET it sent or joined). */
  public boolean touchedStorage() {
    return touchedStorage.get();
  }

  @Override
  public CompletableFuture<ByteBuf> get(String objectKey, long start, long end) {
    Objects.requireNonNull(objectKey, "objectKey");
    long knownSize = objectKey.equals(key) ? sizeBytes : -1;
    long resolvedEnd;
    try {
      ObjectRange.checkRequest(objectKey, start, end);
      resolvedEnd = end == -1 ? resolveEnd(objectKey, knownSize) : end;
    } catch (ObjectStoreException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (cachedOnly) {
      try {
        return cache
            .readCached(objectKey, start, resolvedEnd)
            .map(CompletableFuture::completedFuture)
            .orElseGet(
                () ->
                    CompletableFuture.failedFuture(
                        new PageNotCachedException(objectKey, start, resolvedEnd)));
      } catch (ObjectStoreException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return cache
        .read(objectKey, knownSize, start, resolvedEnd)
        .thenApply(
            read -> {
              if (read.touchedStorage()) {
                touchedStorage.set(true);
              }
              return read.bytes();
            });
  }

  /** Stores through to the real store, then drops any cached pages of {@code objectKey}. */
  @Override
  public CompletableFuture<Void> put(String objectKey, ByteBuf data) {
    return cache
        .store()
        .put(objectKey, data)
        .whenComplete((ignored, error) -> cache.invalidate(objectKey));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return cache.store().list(prefix);
  }

  /** Deletes through to the real store, then drops any cached pages of {@code keys}. */
  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    List<String> copy = List.copyOf(keys);
    return cache
        .store()
        .delete(copy)
        .whenComplete((ignored, error) -> copy.forEach(cache::invalidate));
  }

  /** Does nothing: the view owns neither the cache nor the store. */
  @Override
  public void close() {}

  /**
   * A read "to the end" needs the end: this view knows it only for its own object. Paging an object
   * of unknown size to its end could mean fetching all of it, so that is refused.
   */
  private static long resolveEnd(String objectKey, long knownSize) {
    if (knownSize < 0) {
      throw new ObjectStoreException(
          ObjectStoreException.Kind.INVALID_ARGUMENT,
          "a cached read to the end of '" + objectKey + "' needs the object's size");
    }
    return knownSize;
  }
}
