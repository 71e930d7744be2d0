package io.picomq.s3stream.core.stream;

import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.api.FastReadMissException;
import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.core.logcache.CachedBatch;
import io.picomq.s3stream.core.logcache.LogCache;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Serves {@code Stream.fetch}: the log cache first; for offsets below what the cache holds, the
 * committed data ({@link CommittedReader}), stitched in front of the cached part.
 *
 * <p>Why this is enough: the log cache holds, per stream, a contiguous run of its newest offsets,
 * and everything below that run is committed (blocks are evicted only after their commit). So a
 * fetch from {@code s} finds either the batch holding {@code s} in the cache, or the cache's run
 * begins at some {@code c > s} (or not at all: {@code c} = the end) and {@code [s, c)} is
 * committed. A fetch never goes past the confirm offset.
 *
 * <p>Every answer is checked for continuity: the first batch holds the start offset and each batch
 * begins where the previous ended. A violation is a bug and fails the fetch with an {@link
 * IllegalStateException} naming the stream and the offsets.
 */
public final class Fetcher {

  private final LogCache cache;
  private final CommittedReader committed;
  private final EngineMetrics metrics;

  public Fetcher(LogCache cache, CommittedReader committed, EngineMetrics metrics) {
    this.cache = cache;
    this.committed = committed;
    this.metrics = metrics;
  }

  CompletableFuture<FetchResult> fetch(
      OpenStream stream, long startOffset, long endOffset, int maxBytes, ReadOptions options) {
    long streamId = stream.streamId();
    long confirm = stream.confirmOffset();
    long first = stream.startOffset();
    if (startOffset < first || startOffset > confirm || endOffset < startOffset || maxBytes <= 0) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              "stream "
                  + streamId
                  + ": cannot fetch ["
                  + startOffset
                  + ", "
                  + endOffset
                  + ") with maxBytes "
                  + maxBytes
                  + "; readable offsets are ["
                  + first
                  + ", "
                  + confirm
                  + ")"));
    }
    long end = Math.min(endOffset, confirm);
    if (startOffset == end) {
      return CompletableFuture.completedFuture(new StitchedFetch(List.of(), false));
    }
    List<CachedBatch> cached = cache.get(streamId, startOffset, end, maxBytes);
    if (!cached.isEmpty() && cached.get(0).baseOffset() <= startOffset) {
      List<FetchedBatch> batches = fromCache(cached);
      metrics.readsFromLogCache.increment();
      metrics.readLogCacheBytes.increment(payloadBytes(batches));
      return CompletableFuture.completedFuture(checked(streamId, startOffset, batches, false));
    }
    long cacheStart = cached.isEmpty() ? end : cached.get(0).baseOffset();
    metrics.readsFromStorage.increment();
    List<FetchedBatch> head = new ArrayList<>();
    return readCommitted(streamId, startOffset, cacheStart, maxBytes, options.fastRead(), head)
        .handle(
            (touched, error) -> {
              if (error != null) {
                head.forEach(b -> b.payload().release());
                cached.forEach(CachedBatch::release);
                Throwable cause = Causes.unwrap(error);
                if (cause instanceof FastReadMissException) {
                  metrics.fastReadMisses.increment();
                }
                throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
              }
              return stitch(streamId, startOffset, cacheStart, maxBytes, head, cached, touched);
            });
  }

  /**
   * Reads {@code [from, to)} from committed data into {@code out}, repeating until {@code to} or
   * {@code budget} is reached.
   *
   * @return whether any read touched object storage
   */
  private CompletableFuture<Boolean> readCommitted(
      long streamId, long from, long to, long budget, boolean fastRead, List<FetchedBatch> out) {
    int maxBytes = (int) Math.min(Integer.MAX_VALUE, Math.max(1, budget));
    return committed
        .read(streamId, from, to, maxBytes, fastRead)
        .thenCompose(
            result -> {
              int sizeBefore = out.size();
              boolean touched;
              try (result) {
                touched = result.touchedStorage();
                take(streamId, from, to, result.batches(), out);
              }
              long next = out.isEmpty() ? from : out.get(out.size() - 1).nextOffset();
              if (out.size() == sizeBefore) {
                throw new IllegalStateException(
                    "stream "
                        + streamId
                        + ": offsets ["
                        + next
                        + ", "
                        + to
                        + ") are below the log cache but no committed object holds them");
              }
              long left = budget - payloadBytes(out.subList(sizeBefore, out.size()));
              if (next >= to || left <= 0) {
                return CompletableFuture.completedFuture(touched);
              }
              return readCommitted(streamId, next, to, left, fastRead, out)
                  .thenApply(more -> more || touched);
            });
  }

  /**
   * Moves the batches of {@code read} that continue {@code out} and start below {@code to} into
   * {@code out}, each with a reference of its own.
   */
  private static void take(
      long streamId, long from, long to, List<FetchedBatch> read, List<FetchedBatch> out) {
    for (FetchedBatch b : read) {
      long expected = out.isEmpty() ? -1 : out.get(out.size() - 1).nextOffset();
      boolean continues =
          expected < 0
              ? b.baseOffset() <= from && from < b.nextOffset()
              : b.baseOffset() == expected;
      if (b.baseOffset() >= to || (expected < 0 && b.nextOffset() <= from)) {
        continue;
      }
      if (!continues) {
        throw gap(streamId, expected < 0 ? from : expected, b);
      }
      out.add(new FetchedBatch(b.baseOffset(), b.count(), b.payload().retain()));
    }
  }

  private FetchResult stitch(
      long streamId,
      long startOffset,
      long cacheStart,
      int maxBytes,
      List<FetchedBatch> head,
      List<CachedBatch> cached,
      boolean touchedStorage) {
    long headBytes = payloadBytes(head);
    metrics.readStorageBytes.increment(headBytes);
    long headEnd = head.isEmpty() ? startOffset : head.get(head.size() - 1).nextOffset();
    List<FetchedBatch> all = new ArrayList<>(head);
    if (headEnd == cacheStart && headBytes < maxBytes) {
      List<FetchedBatch> tail = fromCache(cached);
      metrics.readLogCacheBytes.increment(payloadBytes(tail));
      all.addAll(tail);
    } else {
      cached.forEach(CachedBatch::release);
    }
    return checked(streamId, startOffset, all, touchedStorage);
  }

  private static List<FetchedBatch> fromCache(List<CachedBatch> cached) {
    List<FetchedBatch> batches = new ArrayList<>(cached.size());
    for (CachedBatch b : cached) {
      batches.add(new FetchedBatch(b.baseOffset(), b.count(), b.payload()));
    }
    return batches;
  }

  /** The continuity check: releases everything and throws on a gap. */
  private static StitchedFetch checked(
      long streamId, long startOffset, List<FetchedBatch> batches, boolean touchedStorage) {
    long expected = startOffset;
    for (int i = 0; i < batches.size(); i++) {
      FetchedBatch b = batches.get(i);
      boolean ok =
          i == 0
              ? b.baseOffset() <= startOffset && startOffset < b.nextOffset()
              : b.baseOffset() == expected;
      if (!ok) {
        batches.forEach(x -> x.payload().release());
        throw gap(streamId, expected, b);
      }
      expected = b.nextOffset();
    }
    return new StitchedFetch(batches, touchedStorage);
  }

  private static IllegalStateException gap(long streamId, long expected, FetchedBatch found) {
    return new IllegalStateException(
        "stream "
            + streamId
            + ": expected a batch holding offset "
            + expected
            + ", found ["
            + found.baseOffset()
            + ", "
            + found.nextOffset()
            + ")");
  }

  private static long payloadBytes(List<FetchedBatch> batches) {
    long total = 0;
    for (FetchedBatch b : batches) {
      total += b.payload().readableBytes();
    }
    return total;
  }
}
