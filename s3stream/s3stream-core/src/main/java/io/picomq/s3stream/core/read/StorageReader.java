package io.picomq.s3stream.core.read;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.api.FastReadMissException;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.StreamOffsetRange;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.core.blockcache.BlockCache;
import io.picomq.s3stream.core.blockcache.CachedObjectView;
import io.picomq.s3stream.core.blockcache.PageNotCachedException;
import io.picomq.s3stream.core.blockcache.RangeBytes;
import io.picomq.s3stream.object.BlockLocation;
import io.picomq.s3stream.object.DataBlockCodec;
import io.picomq.s3stream.object.IndexEntry;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.object.ObjectReader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads committed data of a stream: the part of a read below the log cache.
 *
 * <h2>How a read is served</h2>
 *
 * <ol>
 *   <li>The catalog ({@link ObjectManager#getObjects}) lists the committed objects holding the
 *       stream's offsets from the read's start, in offset order.
 *   <li>Each object must hold the offset where the previous one stopped (continuity). When the
 *       catalog's answer cannot continue, it is asked again from there; if nothing was read since
 *       its last answer, the offset is a gap. A gap, a catalog that runs out before the requested
 *       end, or an object whose index or blocks do not hold what the catalog says, is a bug
 *       upstream, never a short read: the read fails with an {@link IllegalStateException} naming
 *       the stream and the offsets.
 *   <li>An object is opened once (its footer and index, through the block cache) and kept in a
 *       bounded table; its index selects the blocks; adjacent blocks are read as one range from the
 *       {@link BlockCache}, which serves them from pages or fetches the pages; the blocks are
 *       decoded and checked against their index entries, and batches are kept from the start offset
 *       until the end offset or {@code maxBytes} ({@link ReadCursor}).
 *   <li>After the read, a reader recognized as sequential gets the next stretch of its stream
 *       fetched into the cache ahead of it ({@link Readahead}), started on the readahead executor
 *       so that the read's result does not wait for it.
 * </ol>
 *
 * <p>A {@code fastRead} touches no storage: the object must already be open (or its footer pages
 * cached) and every page resident, else the read fails with {@link FastReadMissException}. It asks
 * the catalog, which lives in memory, and starts no readahead.
 *
 * <p>Threading: any thread may call {@link #read}; reads share only thread-safe parts (the block
 * cache, the table of open objects, the readahead table). Continuations run on whichever thread
 * completes the store's or the catalog's future. No lock is held across any of it.
 */
public final class StorageReader {

  private static final Logger LOG = LoggerFactory.getLogger(StorageReader.class);

  private final ObjectManager objectManager;
  private final ObjectNamespace namespace;
  private final BlockCache blockCache;
  private final StorageReaderConfig config;
  private final ObjectReaderCache openObjects;
  private final Readahead readahead;
  private final Executor readaheadExecutor;

  /**
   * @param objectManager the catalog of committed objects
   * @param namespace where the data objects live in the bucket
   * @param blockCache pages of the object store the objects are read from
   * @param readaheadExecutor starts readahead, after the read that triggered it has its result: a
   *     store may do its work in the caller's thread (the memory store copies there), and a reader
   *     should not wait for bytes it has not asked for yet
   */
  public StorageReader(
      ObjectManager objectManager,
      ObjectNamespace namespace,
      BlockCache blockCache,
      StorageReaderConfig config,
      Executor readaheadExecutor) {
    this.objectManager = Objects.requireNonNull(objectManager, "objectManager");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.blockCache = Objects.requireNonNull(blockCache, "blockCache");
    this.config = Objects.requireNonNull(config, "config");
    this.readaheadExecutor = Objects.requireNonNull(readaheadExecutor, "readaheadExecutor");
    this.openObjects = new ObjectReaderCache(config.openObjects());
    long cacheQuarter = blockCache.config().capacityBytes() / 4;
    this.readahead =
        new Readahead(
            Math.min(config.initialReadaheadBytes(), cacheQuarter),
            Math.min(config.maxReadaheadBytes(), cacheQuarter),
            config.sequentialReaders());
  }

  /**
   * Forgets the opened reader of each object (compaction replaced them: they will be deleted and
   * never read again). Pages of the block cache are the block cache's to drop.
   */
  public void forgetObjects(Collection<Long> objectIds) {
    objectIds.forEach(openObjects::invalidate);
  }

  /**
   * Reads committed batches of {@code streamId} from {@code startOffset}.
   *
   * @param endOffset exclusive; every offset of {@code [startOffset, endOffset)} must be committed
   * @param maxBytes soft limit on encoded batch bytes, {@code > 0}: batches are returned until they
   *     reach it, the one reaching it included
   * @param fastRead fail with {@link FastReadMissException} rather than touch object storage
   * @return batches in offset order, contiguous, the first holding {@code startOffset} (and maybe
   *     beginning before it), ending at {@code endOffset} or later, or earlier when {@code
   *     maxBytes} was reached; the caller closes the result to release the payloads. Fails with
   *     {@link IllegalStateException} on a gap or a disagreement between catalog and objects, with
   *     {@link FastReadMissException} on a fast read that would need storage, and with the store's
   *     or codec's exception otherwise
   * @throws IllegalArgumentException for a negative stream or offset, an end before the start, or
   *     {@code maxBytes <= 0}
   */
  public CompletableFuture<ReadBatches> read(
      long streamId, long startOffset, long endOffset, int maxBytes, boolean fastRead) {
    if (streamId < 0 || startOffset < 0 || endOffset < startOffset || maxBytes <= 0) {
      throw new IllegalArgumentException(
          "bad read of stream "
              + streamId
              + ": ["
              + startOffset
              + ", "
              + endOffset
              + "), maxBytes "
              + maxBytes);
    }
    if (startOffset == endOffset) {
      return CompletableFuture.completedFuture(
          new ReadBatches(streamId, List.of(), startOffset, false));
    }
    ReadCursor cursor = new ReadCursor(streamId, startOffset, endOffset, maxBytes, fastRead);
    Optional<Readahead.Reader> reader =
        fastRead ? Optional.empty() : Optional.of(readahead.begin(streamId, startOffset));
    return lookup(cursor)
        .handle(
            (ignored, error) -> {
              if (error != null) {
                cursor.release();
                throw asCompletion(error);
              }
              ReadBatches result = cursor.result();
              try {
                reader
                    .flatMap(r -> readahead.end(r, result.nextOffset()))
                    .ifPresent(window -> readaheadExecutor.execute(() -> prefetch(window)));
              } catch (RejectedExecutionException e) {
                LOG.debug("readahead of stream {} not started: shutting down", streamId, e);
              } catch (RuntimeException e) {
                // Readahead only costs or saves speed; the read itself succeeded.
                LOG.warn("readahead of stream {} failed to start", streamId, e);
              }
              return result;
            });
  }

  // ---- the read ----

  private CompletableFuture<Void> lookup(ReadCursor cursor) {
    long lookedUpAt = cursor.nextOffset();
    CompletableFuture<List<ObjectMetadata>> listed;
    try {
      listed =
          objectManager.getObjects(
              cursor.streamId, lookedUpAt, cursor.endOffset, config.objectsPerLookup());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return listed.thenCompose(objects -> readObjects(cursor, objects, 0, lookedUpAt));
  }

  /**
   * Reads on from object {@code i} of a catalog answer obtained at offset {@code lookedUpAt}. When
   * the answer cannot continue (it ran out, or its next object starts later), the catalog is asked
   * again from the current offset, unless nothing was read since the last answer: then the offset
   * is a gap. (Asking again also finds an object met before that holds a second, later range of the
   * stream, as compaction can write.)
   */
  private CompletableFuture<Void> readObjects(
      ReadCursor cursor, List<ObjectMetadata> objects, int i, long lookedUpAt) {
    if (cursor.done()) {
      return CompletableFuture.completedFuture(null);
    }
    if (i < objects.size()) {
      ObjectMetadata object = objects.get(i);
      Optional<StreamOffsetRange> range =
          rangeHolding(object, cursor.streamId, cursor.nextOffset());
      if (range.isPresent()) {
        return open(object, cursor)
            .thenCompose(reader -> readFrom(cursor, object, reader, range.get().endOffset()))
            .thenCompose(ignored -> readObjects(cursor, objects, i + 1, lookedUpAt));
      }
      if (endsBefore(object, cursor.streamId, cursor.nextOffset())) {
        return readObjects(cursor, objects, i + 1, lookedUpAt);
      }
    }
    if (cursor.nextOffset() > lookedUpAt) {
      return lookup(cursor);
    }
    throw gap(
        cursor,
        i < objects.size()
            ? "the next object the catalog lists, "
                + objects.get(i).objectId()
                + ", holds "
                + objects.get(i).ranges()
            : "the catalog lists no object holding it");
  }

  /** Reads from one object until its range ends or the read is done. */
  private CompletableFuture<Void> readFrom(
      ReadCursor cursor, ObjectMetadata object, ObjectReader reader, long rangeEnd) {
    long until = Math.min(cursor.endOffset, rangeEnd);
    if (cursor.done() || cursor.nextOffset() >= until) {
      return CompletableFuture.completedFuture(null);
    }
    long from = cursor.nextOffset();
    List<BlockLocation> blocks =
        reader.index().find(cursor.streamId, from, until, cursor.remainingBytes());
    if (blocks.isEmpty()) {
      throw gap(
          cursor,
          "object "
              + object.objectId()
              + " is listed as holding it ("
              + object.ranges()
              + ") but its index has no block there");
    }
    List<BlockRun> runs = BlockRun.group(blocks);
    List<CompletableFuture<RangeBytes>> fetched = new ArrayList<>(runs.size());
    for (BlockRun run : runs) {
      fetched.add(fetchRun(cursor, object, run));
    }
    return CompletableFuture.allOf(fetched.toArray(CompletableFuture<?>[]::new))
        .handle(
            (ignored, error) -> {
              List<RangeBytes> bytes = new ArrayList<>(fetched.size());
              for (CompletableFuture<RangeBytes> f : fetched) {
                if (!f.isCompletedExceptionally()) {
                  bytes.add(f.join());
                }
              }
              try {
                if (error != null) {
                  throw asCompletion(error);
                }
                for (int r = 0; r < runs.size(); r++) {
                  if (bytes.get(r).touchedStorage()) {
                    cursor.touchedStorage();
                  }
                  accept(cursor, runs.get(r), bytes.get(r).bytes());
                }
              } finally {
                bytes.forEach(b -> b.bytes().release());
              }
              if (cursor.nextOffset() == from) {
                throw gap(cursor, "object " + object.objectId() + " returned no batch there");
              }
              return null;
            })
        .thenCompose(ignored -> readFrom(cursor, object, reader, rangeEnd));
  }

  private CompletableFuture<RangeBytes> fetchRun(
      ReadCursor cursor, ObjectMetadata object, BlockRun run) {
    String key = namespace.key(run.objectId());
    if (!cursor.fastRead) {
      return blockCache.read(key, sizeHint(object, run.objectId()), run.start(), run.end());
    }
    Optional<ByteBuf> cached;
    try {
      cached = blockCache.readCached(key, run.start(), run.end());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return cached
        .map(bytes -> CompletableFuture.completedFuture(new RangeBytes(bytes, false)))
        .orElseGet(
            () ->
                CompletableFuture.failedFuture(
                    new FastReadMissException(cursor.streamId, cursor.nextOffset())));
  }

  /** Decodes the blocks of one run and offers their batches to the cursor, in order. */
  private void accept(ReadCursor cursor, BlockRun run, ByteBuf bytes) {
    String key = namespace.key(run.objectId());
    List<RecordBatch> batches = new ArrayList<>();
    int taken = 0;
    try {
      for (IndexEntry entry : run.entries()) {
        int at = bytes.readerIndex() + (int) (entry.startPosition() - run.start());
        batches.addAll(DataBlockCodec.decode(bytes.slice(at, entry.blockSize()), entry, key));
      }
      while (taken < batches.size()) {
        // accept() owns the batch from here on, also if it throws.
        cursor.accept(batches.get(taken++), key);
      }
    } finally {
      for (int j = taken; j < batches.size(); j++) {
        batches.get(j).release();
      }
    }
  }

  private CompletableFuture<ObjectReader> open(ObjectMetadata object, ReadCursor cursor) {
    long objectId = object.objectId();
    if (cursor.fastRead) {
      Optional<ObjectReader> open = openObjects.getIfOpen(objectId);
      if (open.isPresent()) {
        return CompletableFuture.completedFuture(open.get());
      }
      CachedObjectView view =
          CachedObjectView.cachedOnly(blockCache, namespace.key(objectId), object.sizeBytes());
      return ObjectReader.open(view, namespace, objectId, object.sizeBytes())
          .handle(
              (reader, error) -> {
                if (error != null) {
                  throw Causes.unwrap(error) instanceof PageNotCachedException
                      ? new FastReadMissException(cursor.streamId, cursor.nextOffset())
                      : asCompletion(error);
                }
                openObjects.putIfAbsent(reader);
                return reader;
              });
    }
    CompletableFuture<ObjectReader> opened =
        openObjects.get(
            objectId,
            id ->
                openReader(object)
                    .whenComplete(
                        (justOpened, error) -> {
                          // Runs before the shared open completes, so before this read goes on.
                          if (error == null && justOpened.touchedStorage()) {
                            cursor.touchedStorage();
                          }
                        })
                    .thenApply(OpenedObject::reader));
    if (!opened.isDone()) {
      // Joined (or started) an open still waiting for storage.
      cursor.touchedStorage();
    }
    return opened;
  }

  private CompletableFuture<OpenedObject> openReader(ObjectMetadata object) {
    CachedObjectView view =
        CachedObjectView.of(blockCache, namespace.key(object.objectId()), object.sizeBytes());
    return ObjectReader.open(view, namespace, object.objectId(), object.sizeBytes())
        .thenApply(reader -> new OpenedObject(reader, view.touchedStorage()));
  }

  /** An object just opened, and whether its footer and index came from storage. */
  private record OpenedObject(ObjectReader reader, boolean touchedStorage) {}

  // ---- readahead ----

  /** Fetches a window of the reader's stream into the block cache; failures only cost speed. */
  private void prefetch(Readahead.Window window) {
    long streamId = window.reader().streamId;
    CompletableFuture<List<ObjectMetadata>> listed;
    try {
      listed =
          objectManager.getObjects(streamId, window.fromOffset(), -1, config.objectsPerLookup());
    } catch (RuntimeException e) {
      LOG.debug("readahead of stream {} could not list objects", streamId, e);
      return;
    }
    listed
        .thenCompose(
            objects -> prefetchFrom(streamId, objects, 0, window.fromOffset(), window.bytes()))
        .whenComplete(
            (reached, error) -> {
              if (error != null) {
                LOG.debug(
                    "readahead of stream {} from offset {} failed",
                    streamId,
                    window.fromOffset(),
                    error);
              } else {
                window.reader().prefetched(reached);
              }
            });
  }

  /**
   * Requests up to {@code remainingBytes} of blocks from {@code offset}, object after object.
   *
   * @return the offset up to which blocks were requested
   */
  private CompletableFuture<Long> prefetchFrom(
      long streamId, List<ObjectMetadata> objects, int i, long offset, long remainingBytes) {
    if (i == objects.size()) {
      return CompletableFuture.completedFuture(offset);
    }
    ObjectMetadata object = objects.get(i);
    if (remainingBytes <= 0) {
      // The window ended with the previous object: open this one now, so the next window does
      // not wait for its footer before it can ask for data.
      openObjects.get(object.objectId(), id -> openReader(object).thenApply(OpenedObject::reader));
      return CompletableFuture.completedFuture(offset);
    }
    Optional<StreamOffsetRange> range = rangeHolding(object, streamId, offset);
    if (range.isEmpty()) {
      return endsBefore(object, streamId, offset)
          ? prefetchFrom(streamId, objects, i + 1, offset, remainingBytes)
          : CompletableFuture.completedFuture(offset);
    }
    long rangeEnd = range.get().endOffset();
    return openObjects
        .get(object.objectId(), id -> openReader(object).thenApply(OpenedObject::reader))
        .thenCompose(
            reader -> {
              int budget = (int) Math.min(remainingBytes, Integer.MAX_VALUE);
              List<BlockLocation> blocks = reader.index().find(streamId, offset, rangeEnd, budget);
              if (blocks.isEmpty()) {
                return CompletableFuture.completedFuture(offset);
              }
              long requested = 0;
              for (BlockRun run : BlockRun.group(blocks)) {
                blockCache.prefetch(
                    namespace.key(run.objectId()),
                    sizeHint(object, run.objectId()),
                    run.start(),
                    run.end());
                requested += run.sizeBytes();
              }
              long reached = blocks.get(blocks.size() - 1).entry().endOffset();
              return reached >= rangeEnd
                  ? prefetchFrom(streamId, objects, i + 1, reached, remainingBytes - requested)
                  : CompletableFuture.completedFuture(reached);
            });
  }

  // ---- helpers ----

  /** The object's size for its own blocks; unknown (-1) for a composite object's components. */
  private static long sizeHint(ObjectMetadata object, long blockObjectId) {
    return blockObjectId == object.objectId() ? object.sizeBytes() : -1;
  }

  private static Optional<StreamOffsetRange> rangeHolding(
      ObjectMetadata object, long streamId, long offset) {
    for (StreamOffsetRange range : object.ranges()) {
      if (range.streamId() == streamId
          && range.startOffset() <= offset
          && offset < range.endOffset()) {
        return Optional.of(range);
      }
    }
    return Optional.empty();
  }

  /** Whether every range of the stream in the object ends at or before {@code offset}. */
  private static boolean endsBefore(ObjectMetadata object, long streamId, long offset) {
    for (StreamOffsetRange range : object.ranges()) {
      if (range.streamId() == streamId && range.endOffset() > offset) {
        return false;
      }
    }
    return true;
  }

  private static IllegalStateException gap(ReadCursor cursor, String why) {
    return new IllegalStateException(
        "stream "
            + cursor.streamId
            + ": no committed data at offset "
            + cursor.nextOffset()
            + " while reading ["
            + cursor.startOffset
            + ", "
            + cursor.endOffset
            + "): "
            + why);
  }

  private static RuntimeException asCompletion(Throwable error) {
    Throwable cause = Causes.unwrap(error);
    return cause instanceof RuntimeException r ? r : new CompletionException(cause);
  }
}
