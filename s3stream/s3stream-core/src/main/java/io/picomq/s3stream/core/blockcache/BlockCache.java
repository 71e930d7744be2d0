package io.picomq.s3stream.core.blockcache;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Fixed-size pages of immutable objects, held in memory under a byte limit.
 *
 * <h2>Design</h2>
 *
 * <p>Page {@code i} of the object at key {@code k} holds bytes {@code [i * P, (i + 1) * P)} of it,
 * P being {@link BlockCacheConfig#pageSizeBytes()}. Objects are immutable and their keys are never
 * reused for other bytes, so a page never goes stale; it only ages out. A read of a byte range
 * ({@link #read}) takes the pages the range spans: pages in memory are hits; consecutive missing
 * pages are fetched together with one ranged GET (a "load", at most {@link
 * BlockCacheConfig#maxGetBytes()}), which also serves every later reader of those pages until it
 * completes (single flight: one GET per page however many readers wait). {@link #prefetch} starts
 * loads that nobody waits for yet: readahead.
 *
 * <p>Memory: the buffer one GET returned is a "chunk"; its pages are views of it. The cache holds
 * one reference to each chunk that still has a page in the table and charges the chunk's whole size
 * until its last page leaves, so the charge is the memory the cache really keeps alive. Readers
 * receive slices of chunks without a copy ({@link #read} returns a retained slice, or a composite
 * of slices when the range spans chunks); a reader's slice keeps its chunk's memory alive after an
 * eviction until the reader releases it, so memory beyond the limit is bounded by what readers
 * hold, and is theirs to release.
 *
 * <p>Invariants, checked by the tests after every operation:
 *
 * <ul>
 *   <li>{@code usedBytes} is the sum of the reservations of pages being loaded and the sizes of
 *       chunks the table still uses, and never exceeds the capacity. A load reserves its pages'
 *       expected bytes before its GET is sent, so bytes in flight count. Room is made by evicting
 *       resident pages in least-recently-read order before a load is admitted; pages being loaded
 *       are never evicted. If loads in flight leave no room, a read is served without caching (its
 *       GET is private to it) and a prefetch is skipped: the limit holds, always.
 *   <li>A chunk is no larger than the reservations it replaces: a load links its pages only if all
 *       of them are still in the table when it completes (an invalidation in between makes it serve
 *       its waiters and cache nothing).
 *   <li>A resident page not read for {@link BlockCacheConfig#ttl()} is dropped when the cache next
 *       meets it (eviction sweeps, lookups, {@link #cleanUp}); the cache starts no thread.
 * </ul>
 *
 * <p>Threading: any thread may call any method. One {@link ReentrantLock} guards the page table and
 * the accounting; under it the cache only looks up, links, unlinks, counts and retains. GETs are
 * sent, buffers sliced and released, and futures completed after the lock is released.
 */
public final class BlockCache implements AutoCloseable {

  private final ObjectStore store;
  private final BlockCacheConfig config;
  private final InstantSource clock;
  private final ByteBufAllocator allocator;
  private final BlockCacheMetrics metrics;
  private final int pageSize;
  private final long ttlMillis;

  private final ReentrantLock lock = new ReentrantLock();
  // Guarded by lock. Access order: the eldest entry is the least recently read page.
  private final LinkedHashMap<PageKey, Page> pages = new LinkedHashMap<>(64, 0.75f, true);
  private long usedBytes;
  private long loadingBytes;
  private int loadingPages;
  private boolean closed;

  /**
   * @param store where pages come from; not closed by this cache
   * @param clock the time source of the TTL
   * @param allocator allocates the composite buffers that join slices of several chunks
   * @param registry receives the {@code s3stream.blockcache.*} meters
   */
  public BlockCache(
      ObjectStore store,
      BlockCacheConfig config,
      InstantSource clock,
      ByteBufAllocator allocator,
      MeterRegistry registry) {
    this.store = Objects.requireNonNull(store, "store");
    this.config = Objects.requireNonNull(config, "config");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.allocator = Objects.requireNonNull(allocator, "allocator");
    this.pageSize = config.pageSizeBytes();
    this.ttlMillis = config.ttl().toMillis();
    this.metrics = new BlockCacheMetrics(Objects.requireNonNull(registry, "registry"), this);
  }

  public BlockCacheConfig config() {
    return config;
  }

  /** The store pages come from. */
  ObjectStore store() {
    return store;
  }

  /**
   * Reads bytes {@code [start, end)} of the object at {@code key} through the cache.
   *
   * @param objectSizeBytes the object's size if known, else {@code -1}: the last page is then
   *     discovered by a GET that fails with the store's range error and is repeated up to the end
   * @return the bytes, which the caller releases and must not write (they may be the memory of
   *     cached pages); or the store's error, e.g. {@link ObjectStoreException} of kind {@code
   *     INVALID_ARGUMENT} if the range exceeds the object
   */
  public CompletableFuture<RangeBytes> read(
      String key, long objectSizeBytes, long start, long end) {
    Optional<ObjectStoreException> invalid = checkRange(key, objectSizeBytes, start, end);
    if (invalid.isPresent()) {
      return CompletableFuture.failedFuture(invalid.get());
    }
    if (start == end) {
      return CompletableFuture.completedFuture(new RangeBytes(allocator.buffer(0), false));
    }
    long first = start / pageSize;
    long last = (end - 1) / pageSize;
    List<CompletableFuture<Piece>> parts = new ArrayList<>((int) (last - first + 1));
    List<Load> loads = new ArrayList<>();
    List<ByteBuf> dropped = new ArrayList<>();
    boolean touchedStorage = false;
    lock.lock();
    try {
      if (closed) {
        return CompletableFuture.failedFuture(closedError(key));
      }
      long now = clock.millis();
      expireIdle(now, dropped);
      Load run = null;
      for (long index = first; index <= last; index++) {
        Page page = lookup(new PageKey(key, index), now, dropped);
        if (page != null && page.chunk != null) {
          metrics.hits.increment();
          page.lastReadMillis = now;
          parts.add(CompletableFuture.completedFuture(page.piece()));
          run = null;
          continue;
        }
        metrics.misses.increment();
        touchedStorage = true;
        CompletableFuture<Piece> part = new CompletableFuture<>();
        parts.add(part);
        if (page != null) {
          page.waiters.add(part);
          run = null;
          continue;
        }
        if (run == null || run.pages.size() == config.maxPagesPerGet()) {
          run = new Load(key, objectSizeBytes, index, false);
          loads.add(run);
        }
        run.add(new Page(new PageKey(key, index), expectedSize(objectSizeBytes, index)))
            .waiters
            .add(part);
      }
      for (Load load : loads) {
        if (reserve(load.reservedBytes(), dropped)) {
          admit(load);
        }
      }
    } finally {
      lock.unlock();
    }
    dropped.forEach(ByteBuf::release);
    loads.forEach(this::send);
    boolean touched = touchedStorage;
    return CompletableFuture.allOf(parts.toArray(CompletableFuture<?>[]::new))
        .handle(
            (ignored, error) -> {
              List<Piece> pieces = new ArrayList<>(parts.size());
              for (CompletableFuture<Piece> part : parts) {
                if (!part.isCompletedExceptionally()) {
                  pieces.add(part.join());
                }
              }
              if (error != null) {
                pieces.forEach(Piece::release);
                throw new CompletionException(Causes.unwrap(error));
              }
              return new RangeBytes(join(key, pieces, first, start, end), touched);
            });
  }

  /**
   * Reads bytes {@code [start, end)} of the object at {@code key} only if every page they span is
   * in memory; never touches storage.
   *
   * @return the bytes, which the caller releases and must not write, or empty if a page is missing
   * @throws ObjectStoreException of kind {@code INVALID_ARGUMENT} for a malformed range, or if a
   *     cached last page shows that the range exceeds the object
   */
  public Optional<ByteBuf> readCached(String key, long start, long end) {
    Optional<ObjectStoreException> invalid = checkRange(key, -1, start, end);
    if (invalid.isPresent()) {
      throw invalid.get();
    }
    if (start == end) {
      return Optional.of(allocator.buffer(0));
    }
    long first = start / pageSize;
    long last = (end - 1) / pageSize;
    List<Piece> pieces = new ArrayList<>((int) (last - first + 1));
    List<ByteBuf> dropped = new ArrayList<>();
    lock.lock();
    try {
      long now = clock.millis();
      for (long index = first; index <= last && !closed; index++) {
        Page page = lookup(new PageKey(key, index), now, dropped);
        if (page == null || page.chunk == null) {
          metrics.misses.increment();
          break;
        }
        metrics.hits.increment();
        page.lastReadMillis = now;
        pieces.add(page.piece());
      }
    } finally {
      lock.unlock();
    }
    dropped.forEach(ByteBuf::release);
    if (pieces.size() != last - first + 1) {
      pieces.forEach(Piece::release);
      return Optional.empty();
    }
    return Optional.of(join(key, pieces, first, start, end));
  }

  /**
   * Starts loading the pages of {@code [start, end)} that are neither in memory nor being loaded,
   * if they fit (resident pages may be evicted for them; pages in flight are not). Nobody waits for
   * them; a failed prefetch is forgotten, and a later read fetches the pages again.
   *
   * @param objectSizeBytes as for {@link #read}
   */
  public void prefetch(String key, long objectSizeBytes, long start, long end) {
    if (checkRange(key, objectSizeBytes, start, end).isPresent() || start == end) {
      return;
    }
    long first = start / pageSize;
    long last = (end - 1) / pageSize;
    List<Load> loads = new ArrayList<>();
    List<ByteBuf> dropped = new ArrayList<>();
    lock.lock();
    try {
      if (closed) {
        return;
      }
      expireIdle(clock.millis(), dropped);
      Load run = null;
      for (long index = first; index <= last; index++) {
        PageKey pageKey = new PageKey(key, index);
        if (pages.containsKey(pageKey)) {
          run = null;
          continue;
        }
        if (run == null || run.pages.size() == config.maxPagesPerGet()) {
          run = new Load(key, objectSizeBytes, index, true);
          loads.add(run);
        }
        run.add(new Page(pageKey, expectedSize(objectSizeBytes, index)));
      }
      loads.removeIf(load -> !reserve(load.reservedBytes(), dropped));
      loads.forEach(this::admit);
    } finally {
      lock.unlock();
    }
    dropped.forEach(ByteBuf::release);
    loads.forEach(this::send);
  }

  /** Drops every page of the object at {@code key}; loads in flight still serve their waiters. */
  public void invalidate(String key) {
    List<ByteBuf> dropped = new ArrayList<>();
    lock.lock();
    try {
      Iterator<Page> it = pages.values().iterator();
      while (it.hasNext()) {
        Page page = it.next();
        if (page.key.objectKey().equals(key)) {
          it.remove();
          unlink(page, dropped);
          metrics.invalidated.increment();
        }
      }
    } finally {
      lock.unlock();
    }
    dropped.forEach(ByteBuf::release);
  }

  /**
   * Drops pages whose TTL passed. The cache also does this whenever it is used; a host may call it
   * from its scheduler so that an idle node returns the memory too.
   */
  public void cleanUp() {
    List<ByteBuf> dropped = new ArrayList<>();
    lock.lock();
    try {
      expireIdle(clock.millis(), dropped);
    } finally {
      lock.unlock();
    }
    dropped.forEach(ByteBuf::release);
  }

  public BlockCacheStats stats() {
    lock.lock();
    try {
      return new BlockCacheStats(
          usedBytes,
          loadingBytes,
          pages.size() - loadingPages,
          loadingPages,
          config.capacityBytes());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Releases every resident page. Later reads fail with {@link ObjectStoreException.Kind#CLOSED};
   * loads in flight still answer their waiters, then release their bytes. The store stays open.
   */
  @Override
  public void close() {
    List<ByteBuf> dropped = new ArrayList<>();
    lock.lock();
    try {
      closed = true;
      pages.values().forEach(page -> unlink(page, dropped));
      pages.clear();
    } finally {
      lock.unlock();
    }
    dropped.forEach(ByteBuf::release);
  }

  // ---- under the lock ----

  /** The page at {@code key}, or null if absent or just expired (then dropped). */
  private Page lookup(PageKey key, long now, List<ByteBuf> dropped) {
    Page page = pages.get(key);
    if (page != null && page.chunk != null && now - page.lastReadMillis >= ttlMillis) {
      pages.remove(key);
      unlink(page, dropped);
      metrics.expired.increment();
      return null;
    }
    return page;
  }

  /**
   * Drops idle resident pages from the least recently read end. Stops at the first resident page
   * still within its TTL: those after it were read more recently.
   */
  private void expireIdle(long now, List<ByteBuf> dropped) {
    Iterator<Page> it = pages.values().iterator();
    while (it.hasNext()) {
      Page page = it.next();
      if (page.chunk == null) {
        continue;
      }
      if (now - page.lastReadMillis < ttlMillis) {
        return;
      }
      it.remove();
      unlink(page, dropped);
      metrics.expired.increment();
    }
  }

  /**
   * Charges {@code bytes} against the capacity, evicting least recently read resident pages as
   * needed. Refuses, evicting nothing, when even a table without resident pages would not fit them
   * beside the loads in flight.
   */
  private boolean reserve(long bytes, List<ByteBuf> dropped) {
    if (loadingBytes + bytes > config.capacityBytes()) {
      return false;
    }
    Iterator<Page> it = pages.values().iterator();
    while (usedBytes + bytes > config.capacityBytes()) {
      Page page = it.next();
      if (page.chunk != null) {
        it.remove();
        unlink(page, dropped);
        metrics.evictedForSize.increment();
      }
    }
    usedBytes += bytes;
    loadingBytes += bytes;
    return true;
  }

  /** Links the pages of a load whose bytes {@link #reserve} charged. */
  private void admit(Load load) {
    for (Page page : load.pages) {
      pages.put(page.key, page);
      loadingPages++;
    }
  }

  /**
   * Takes away what a page removed from the table was charged: its reservation while loading; its
   * chunk once the chunk's last page is gone (the chunk's buffer joins {@code dropped}).
   */
  private void unlink(Page page, List<ByteBuf> dropped) {
    if (page.chunk == null) {
      usedBytes -= page.reservedBytes;
      loadingBytes -= page.reservedBytes;
      loadingPages--;
    } else if (--page.chunk.pages == 0) {
      usedBytes -= page.chunk.bytes.readableBytes();
      dropped.add(page.chunk.bytes);
    }
  }

  // ---- outside the lock ----

  private void send(Load load) {
    long from = load.firstIndex * pageSize;
    long to = load.endPosition();
    fetch(load.key, from, to)
        .whenComplete(
            (bytes, error) -> {
              boolean unknownEnd = load.objectSizeBytes < 0;
              if (error != null && unknownEnd && isInvalidRange(error)) {
                // The object ends inside this load's last page: read to its end instead.
                fetch(load.key, from, -1).whenComplete((tail, e) -> complete(load, tail, e));
              } else {
                complete(load, bytes, error);
              }
            });
  }

  private CompletableFuture<ByteBuf> fetch(String key, long from, long to) {
    metrics.gets.increment();
    CompletableFuture<ByteBuf> fetched;
    try {
      fetched = store.get(key, from, to);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return fetched.whenComplete(
        (bytes, error) -> {
          if (bytes != null) {
            metrics.getBytes.increment(bytes.readableBytes());
          }
        });
  }

  /**
   * Hands a finished load to its waiters and makes its pages resident. Takes over the reference
   * {@code bytes} carries.
   */
  private void complete(Load load, ByteBuf fetched, Throwable error) {
    ByteBuf bytes = fetched;
    if (bytes != null && bytes.readableBytes() > load.endPosition() - load.firstIndex * pageSize) {
      // A read "to the end" returned more than the load covers: keep only its pages.
      ByteBuf trimmed =
          bytes.retainedSlice(
              bytes.readerIndex(), (int) (load.endPosition() - load.firstIndex * pageSize));
      bytes.release();
      bytes = trimmed;
    }
    int available = bytes == null ? 0 : bytes.readableBytes();
    if (bytes != null && load.prefetch) {
      metrics.readaheadBytes.increment(available);
    }
    Chunk chunk = bytes == null ? null : new Chunk(bytes);
    List<Runnable> completions = new ArrayList<>();
    List<ByteBuf> dropped = new ArrayList<>();
    lock.lock();
    try {
      boolean link = chunk != null;
      for (Page page : load.pages) {
        link &= pages.get(page.key) == page;
      }
      long now = clock.millis();
      for (int i = 0; i < load.pages.size(); i++) {
        Page page = load.pages.get(i);
        int offset = i * pageSize;
        boolean linked = pages.get(page.key) == page;
        if (linked) {
          pages.remove(page.key);
          unlink(page, dropped);
        }
        if (chunk == null || offset >= available) {
          Throwable failure =
              error != null ? Causes.unwrap(error) : pastEnd(load.key, page.key.index());
          page.waiters.forEach(w -> completions.add(() -> w.completeExceptionally(failure)));
          continue;
        }
        page.chunk = chunk;
        page.offset = offset;
        page.length = Math.min(pageSize, available - offset);
        for (CompletableFuture<Piece> waiter : page.waiters) {
          Piece piece = page.piece();
          completions.add(() -> waiter.complete(piece));
        }
        page.waiters.clear();
        if (link) {
          page.lastReadMillis = now;
          pages.put(page.key, page);
          chunk.pages++;
        }
      }
      if (chunk != null && chunk.pages > 0) {
        usedBytes += available;
      } else if (chunk != null) {
        dropped.add(chunk.bytes);
      }
    } finally {
      lock.unlock();
    }
    completions.forEach(Runnable::run);
    dropped.forEach(ByteBuf::release);
  }

  /**
   * Joins the pieces of consecutive pages, from page {@code first}, into the bytes {@code [start,
   * end)}: a retained slice when they lie in one chunk, else a composite of slices. Releases the
   * pieces.
   */
  private ByteBuf join(String key, List<Piece> pieces, long first, long start, long end) {
    List<ByteBuf> slices = new ArrayList<>(1);
    try {
      Piece runPiece = null;
      int runFrom = 0;
      int runTo = 0;
      for (int i = 0; i < pieces.size(); i++) {
        Piece piece = pieces.get(i);
        long pageStart = (first + i) * pageSize;
        int from = (int) (Math.max(start, pageStart) - pageStart);
        int to = (int) (Math.min(end, pageStart + pageSize) - pageStart);
        if (to > piece.length) {
          throw pastEnd(key, start, end, pageStart + piece.length);
        }
        if (runPiece != null && runPiece.chunk == piece.chunk && runTo == piece.offset + from) {
          runTo = piece.offset + to;
          continue;
        }
        if (runPiece != null) {
          slices.add(runPiece.slice(runFrom, runTo));
        }
        runPiece = piece;
        runFrom = piece.offset + from;
        runTo = piece.offset + to;
      }
      slices.add(runPiece.slice(runFrom, runTo));
      // Not wrapped read-only: that cost 15-30% of cold replay with small batches (ReadBenchmark).
      if (slices.size() == 1) {
        return slices.remove(0);
      }
      CompositeByteBuf joined = allocator.compositeBuffer(slices.size());
      joined.addComponents(true, slices);
      slices.clear();
      return joined;
    } finally {
      slices.forEach(ByteBuf::release);
      pieces.forEach(Piece::release);
    }
  }

  private long expectedSize(long objectSizeBytes, long index) {
    long pageStart = index * pageSize;
    return objectSizeBytes < 0 ? pageSize : Math.min(pageSize, objectSizeBytes - pageStart);
  }

  private static Optional<ObjectStoreException> checkRange(
      String key, long objectSizeBytes, long start, long end) {
    Objects.requireNonNull(key, "key");
    String problem = null;
    if (start < 0 || end < start) {
      problem = "start must be >= 0 and end >= start";
    } else if (end - start > Integer.MAX_VALUE) {
      problem = "a read must fit in one buffer";
    } else if (objectSizeBytes >= 0 && end > objectSizeBytes) {
      problem = "the object has only " + objectSizeBytes + " bytes";
    }
    return Optional.ofNullable(problem)
        .map(
            why ->
                new ObjectStoreException(
                    ObjectStoreException.Kind.INVALID_ARGUMENT,
                    "range [" + start + ", " + end + ") of '" + key + "' is invalid: " + why));
  }

  private static boolean isInvalidRange(Throwable error) {
    return Causes.unwrap(error) instanceof ObjectStoreException e
        && e.kind() == ObjectStoreException.Kind.INVALID_ARGUMENT;
  }

  private ObjectStoreException pastEnd(String key, long index) {
    return pastEnd(key, index * pageSize, (index + 1) * pageSize, index * pageSize);
  }

  private static ObjectStoreException pastEnd(String key, long start, long end, long objectEnd) {
    return new ObjectStoreException(
        ObjectStoreException.Kind.INVALID_ARGUMENT,
        "range ["
            + start
            + ", "
            + end
            + ") of '"
            + key
            + "' exceeds the object, which ends at "
            + objectEnd);
  }

  private static ObjectStoreException closedError(String key) {
    return new ObjectStoreException(
        ObjectStoreException.Kind.CLOSED, "the block cache is closed; cannot read " + key);
  }

  /**
   * The buffer one GET returned. The cache holds one reference to it while {@code pages > 0}
   * (guarded by the lock); readers hold their own.
   */
  private static final class Chunk {
    final ByteBuf bytes;
    int pages;

    Chunk(ByteBuf bytes) {
      this.bytes = bytes;
    }
  }

  /**
   * A reference to page bytes held outside the lock: {@code [offset, offset + length)} of a chunk,
   * relative to its reader index, plus one reference to the chunk's buffer that {@link #release}
   * gives back.
   */
  private record Piece(Chunk chunk, int offset, int length) {
    ByteBuf slice(int from, int to) {
      return chunk.bytes.retainedSlice(chunk.bytes.readerIndex() + from, to - from);
    }

    void release() {
      chunk.bytes.release();
    }
  }

  /**
   * One page: being loaded ({@code chunk == null}, readers queued in {@code waiters}, {@code
   * reservedBytes} charged) or resident (bytes {@code [offset, offset + length)} of its chunk).
   * Every field is guarded by the cache's lock.
   */
  private static final class Page {
    final PageKey key;
    final long reservedBytes;
    final List<CompletableFuture<Piece>> waiters = new ArrayList<>(1);
    Chunk chunk;
    int offset;
    int length;
    long lastReadMillis;

    Page(PageKey key, long reservedBytes) {
      this.key = key;
      this.reservedBytes = reservedBytes;
    }

    /** A new reference to this resident page's bytes. Under the lock. */
    Piece piece() {
      chunk.bytes.retain();
      return new Piece(chunk, offset, length);
    }
  }

  /** Consecutive pages of one object fetched with one GET. */
  private final class Load {
    final String key;
    final long objectSizeBytes;
    final long firstIndex;
    final boolean prefetch;
    final List<Page> pages = new ArrayList<>();

    Load(String key, long objectSizeBytes, long firstIndex, boolean prefetch) {
      this.key = key;
      this.objectSizeBytes = objectSizeBytes;
      this.firstIndex = firstIndex;
      this.prefetch = prefetch;
    }

    Page add(Page page) {
      pages.add(page);
      return page;
    }

    long reservedBytes() {
      long total = 0;
      for (Page page : pages) {
        total += page.reservedBytes;
      }
      return total;
    }

    /** The exclusive end of the bytes this load asks for. */
    long endPosition() {
      long end = (firstIndex + pages.size()) * pageSize;
      return objectSizeBytes < 0 ? end : Math.min(end, objectSizeBytes);
    }
  }
}
