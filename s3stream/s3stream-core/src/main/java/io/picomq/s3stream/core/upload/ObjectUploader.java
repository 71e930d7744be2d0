package io.picomq.s3stream.core.upload;

import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.StreamObject;
import io.picomq.s3stream.api.StreamOffsetRange;
import io.picomq.s3stream.core.logcache.CachedBatch;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import io.picomq.s3stream.object.ObjectWriter;
import io.picomq.s3stream.object.StreamRange;
import io.picomq.s3stream.object.WrittenObject;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.time.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes one upload's data objects and returns the commit that would make them visible (it does not
 * commit: {@link UploadPipeline} orders commits).
 *
 * <p>The split: a stream with at least {@code streamSplitSizeBytes} in the upload gets a stream
 * object of its own, so a large stream's data never needs compaction to be read efficiently; every
 * other stream goes into one stream-set object, in ascending stream id order. With a split size of
 * 1000 and streams 1 (1500 bytes), 2 (300), 3 (999):
 *
 * <pre>
 *   prepareObjects(2) -> ids 40, 41
 *   40: stream object of stream 1
 *   41: stream-set object holding streams 2 and 3
 *   commit(objectId 41, ranges [2, 3], streamObjects [40])
 * </pre>
 *
 * <p>Ids: an upload of one object takes the id reserved by the upload before it and reserves the
 * next one (so the node holds one prepared id beyond what it uploads; an unused one expires with
 * its TTL, as the ids of an upload that died do). An upload of several objects prepares its ids
 * itself.
 *
 * <p>Threading: any thread; the only state kept between calls is the reserved id.
 */
public final class ObjectUploader {

  private final ObjectStore store;
  private final ObjectManager objectManager;
  private final UploadSettings settings;
  private final ByteBufAllocator allocator;
  private final EngineMetrics metrics;
  private final Scheduler scheduler;
  private final long reserveLifetimeNanos;

  /**
   * The id prepared ahead for the next upload of one object (most uploads: one stream-set object),
   * or null. That upload then writes at once instead of waiting for a metadata round trip first,
   * and closing a stream waits for an upload: a transfer's handoff is one such chain (figures in
   * website/pages/docs/transfers.md). Any thread: taken and replaced atomically.
   */
  private final AtomicReference<Reserve> reserve = new AtomicReference<>();

  /** An id whose preparation was asked for at {@code preparedNanos}. */
  private record Reserve(CompletableFuture<Long> firstId, long preparedNanos) {}

  public ObjectUploader(
      ObjectStore store,
      ObjectManager objectManager,
      UploadSettings settings,
      ByteBufAllocator allocator,
      EngineMetrics metrics,
      Scheduler scheduler) {
    this.store = store;
    this.objectManager = objectManager;
    this.settings = settings;
    this.allocator = allocator;
    this.metrics = metrics;
    this.scheduler = scheduler;
    // Used well within its TTL: the upload that takes it still has to write and commit.
    this.reserveLifetimeNanos = settings.preparedObjectTtl().toNanos() / 2;
  }

  /**
   * Prepares ids, writes the objects and returns the commit request holding them.
   *
   * @param orderId the upload's sequence number, carried into the request
   * @param streams by ascending stream id; their batch references are taken over and released
   * @return the request to commit; fails with the store's or the metadata plane's error (objects
   *     already written are then left for the host's collection of expired prepared ids)
   */
  public CompletableFuture<CommitStreamSetObjectRequest> write(
      long orderId, List<StreamData> streams) {
    List<StreamData> own = new ArrayList<>();
    List<StreamData> shared = new ArrayList<>();
    long previous = -1;
    for (StreamData s : streams) {
      if (s.streamId() <= previous) {
        streams.forEach(StreamData::release);
        return CompletableFuture.failedFuture(
            new IllegalArgumentException(
                "streams must ascend: " + s.streamId() + " after " + previous));
      }
      previous = s.streamId();
      (s.sizeBytes() >= settings.streamSplitSizeBytes() ? own : shared).add(s);
    }
    int count = own.size() + (shared.isEmpty() ? 0 : 1);
    if (count == 0) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("nothing to upload"));
    }
    return prepare(count)
        .whenComplete(
            (firstId, error) -> {
              if (error != null) {
                streams.forEach(StreamData::release);
              }
            })
        .thenCompose(firstId -> writeAll(orderId, firstId, own, shared, streams));
  }

  /**
   * The first of {@code count} fresh object ids: for one, the id reserved ahead (and a new one
   * reserved for the next upload), unless it is old or its preparation failed.
   */
  private CompletableFuture<Long> prepare(int count) {
    if (count != 1) {
      return prepareNow(count);
    }
    Reserve taken = reserve.getAndSet(null);
    CompletableFuture<Long> firstId;
    if (taken == null || scheduler.nanoTime() - taken.preparedNanos() > reserveLifetimeNanos) {
      // An old reserve is left to expire, as the ids of an upload that failed are.
      firstId = prepareNow(1);
    } else {
      firstId = taken.firstId().exceptionallyCompose(failed -> prepareNow(1));
    }
    reserveNext(); // after this upload's own prepare, which the log then applies first
    return firstId;
  }

  /** Reserves an id for the next upload of one object, unless one is reserved already. */
  private void reserveNext() {
    Reserve next = new Reserve(new CompletableFuture<>(), scheduler.nanoTime());
    if (reserve.compareAndSet(null, next)) {
      prepareNow(1)
          .whenComplete(
              (firstId, error) -> {
                if (error != null) {
                  next.firstId().completeExceptionally(error);
                } else {
                  next.firstId().complete(firstId);
                }
              });
    }
  }

  private CompletableFuture<Long> prepareNow(int count) {
    try {
      return objectManager.prepareObjects(count, settings.preparedObjectTtl());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<CommitStreamSetObjectRequest> writeAll(
      long orderId,
      long firstId,
      List<StreamData> own,
      List<StreamData> shared,
      List<StreamData> all) {
    List<CompletableFuture<WrittenObject>> streamObjects = new ArrayList<>();
    for (int i = 0; i < own.size(); i++) {
      streamObjects.add(writeObject(firstId + i, List.of(own.get(i))));
    }
    CompletableFuture<WrittenObject> streamSet =
        shared.isEmpty() ? null : writeObject(firstId + own.size(), shared);
    List<CompletableFuture<?>> everything = new ArrayList<>(streamObjects);
    if (streamSet != null) {
      everything.add(streamSet);
    }
    Map<Long, Long> epochs = new HashMap<>();
    all.forEach(s -> epochs.put(s.streamId(), s.epoch()));
    return CompletableFuture.allOf(everything.toArray(CompletableFuture<?>[]::new))
        .thenApply(
            ignored -> {
              List<StreamObject> objects = new ArrayList<>();
              for (CompletableFuture<WrittenObject> f : streamObjects) {
                WrittenObject w = f.join();
                StreamRange range = onlyRange(w);
                objects.add(
                    new StreamObject(
                        w.objectId(),
                        w.sizeBytes(),
                        new StreamOffsetRange(
                            range.streamId(), range.startOffset(), range.endOffset()),
                        w.attributes().value()));
                metrics.uploadedStreamObjects.increment();
                metrics.uploadBytes.increment(w.sizeBytes());
              }
              long objectId = -1;
              long sizeBytes = 0;
              List<StreamOffsetRange> ranges = new ArrayList<>();
              if (streamSet != null) {
                WrittenObject w = streamSet.join();
                objectId = w.objectId();
                sizeBytes = w.sizeBytes();
                for (StreamRange r : w.streamRanges()) {
                  ranges.add(new StreamOffsetRange(r.streamId(), r.startOffset(), r.endOffset()));
                }
                metrics.uploadedStreamSetObjects.increment();
                metrics.uploadBytes.increment(w.sizeBytes());
              }
              return new CommitStreamSetObjectRequest(
                  objectId, orderId, sizeBytes, ranges, objects, List.of(), epochs);
            });
  }

  /** Writes one object from the streams' batches; the writer takes over their references. */
  private CompletableFuture<WrittenObject> writeObject(long objectId, List<StreamData> streams) {
    ObjectWriter writer = new ObjectWriter(settings.objectBlockSizeBytes(), allocator);
    int next = 0;
    try {
      for (StreamData s : streams) {
        for (CachedBatch b : s.batches()) {
          next++;
          writer.append(b.encoded());
        }
      }
      return writer.upload(store, settings.namespace(), objectId);
    } catch (RuntimeException e) {
      // The writer released what it was given; release what it never saw.
      int seen = 0;
      for (StreamData s : streams) {
        for (CachedBatch b : s.batches()) {
          if (seen++ >= next) {
            b.release();
          }
        }
      }
      writer.close();
      return CompletableFuture.failedFuture(e);
    }
  }

  private static StreamRange onlyRange(WrittenObject w) {
    if (w.streamRanges().size() != 1) {
      throw new IllegalStateException(
          "stream object " + w.objectId() + " holds " + w.streamRanges() + ", not one range");
    }
    return w.streamRanges().get(0);
  }
}
