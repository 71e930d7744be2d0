package io.picomq.s3stream.object;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.CorruptDataException.Reason;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reads one data object, normal or composite, from an {@link ObjectStore}.
 *
 * <p>{@link #open} costs one ranged GET in the common case: it reads the last {@code tailReadBytes}
 * of the object, which hold the footer and, unless the index is larger, the whole index. Otherwise
 * a second GET fetches the rest (for a composite object, everything from position 0, where its
 * component table is). The decoded index stays in memory; the reader holds no buffer and needs no
 * closing. Reads then binary-search the index ({@link ObjectIndex#find}) and fetch the blocks, one
 * GET per run of adjacent blocks in one object.
 *
 * <p>Errors: every future completes. Bytes that are not a well-formed object, a block that
 * disagrees with its index entry, or an object shorter than its index says fail with {@link
 * CorruptDataException}; a missing object or a store failure fails with the store's {@link
 * ObjectStoreException}. No buffer exception escapes.
 *
 * <p>Threading: immutable after open; any thread may read concurrently.
 */
public final class ObjectReader {

  /** Bytes {@link #open} reads from the end of an object by default. */
  public static final int DEFAULT_TAIL_READ_BYTES = 16 * 1024;

  private final ObjectStore store;
  private final ObjectNamespace namespace;
  private final String key;
  private final long sizeBytes;
  private final ObjectIndex index;

  private ObjectReader(
      ObjectStore store, ObjectNamespace namespace, String key, long sizeBytes, ObjectIndex index) {
    this.store = store;
    this.namespace = namespace;
    this.key = key;
    this.sizeBytes = sizeBytes;
    this.index = index;
  }

  /** Opens with {@link #DEFAULT_TAIL_READ_BYTES}. */
  public static CompletableFuture<ObjectReader> open(
      ObjectStore store, ObjectNamespace namespace, long objectId, long sizeBytes) {
    return open(store, namespace, objectId, sizeBytes, DEFAULT_TAIL_READ_BYTES);
  }

  /**
   * Fetches and checks the footer and index of object {@code objectId}.
   *
   * @param namespace locates the object and, for a composite object, its components
   * @param sizeBytes the object's size as the metadata recorded it
   * @param tailReadBytes how many bytes to read from the end at first; at least the footer is read
   * @return the reader, or a failure: {@link CorruptDataException} if the object is malformed or
   *     shorter than {@code sizeBytes}; the store's exception otherwise
   */
  public static CompletableFuture<ObjectReader> open(
      ObjectStore store,
      ObjectNamespace namespace,
      long objectId,
      long sizeBytes,
      int tailReadBytes) {
    Objects.requireNonNull(store, "store");
    String key = namespace.key(objectId);
    if (sizeBytes < Footer.SIZE) {
      return CompletableFuture.failedFuture(
          new CorruptDataException(
              Reason.TRUNCATED, "object " + key + " of " + sizeBytes + " bytes has no footer"));
    }
    long tailStart = Math.max(0, sizeBytes - Math.max(tailReadBytes, Footer.SIZE));
    return fetch(store, key, tailStart, sizeBytes)
        .thenCompose(
            tail -> {
              long needed;
              try {
                Footer footer = Footer.decode(tail, sizeBytes, key);
                needed = footer.type() == ObjectType.COMPOSITE ? 0 : footer.indexStart();
                if (sizeBytes - needed > Integer.MAX_VALUE) {
                  throw new CorruptDataException(
                      Reason.BAD_LENGTH, "object " + key + ": index larger than 2 GiB");
                }
              } catch (RuntimeException e) {
                tail.release();
                throw e;
              }
              if (needed >= tailStart) {
                return CompletableFuture.completedFuture(
                    decode(store, namespace, objectId, key, sizeBytes, tail, tailStart));
              }
              return fetch(store, key, needed, tailStart)
                  .handle(
                      (head, error) -> {
                        if (error != null) {
                          tail.release();
                          throw asCompletion(error);
                        }
                        ByteBuf body = Unpooled.wrappedBuffer(head, tail);
                        return decode(store, namespace, objectId, key, sizeBytes, body, needed);
                      });
            });
  }

  /** The object's key. */
  public String key() {
    return key;
  }

  public long objectId() {
    return index.objectId();
  }

  /** The object's size as given to {@link #open}. */
  public long sizeBytes() {
    return sizeBytes;
  }

  /** The checked index. */
  public ObjectIndex index() {
    return index;
  }

  /**
   * Reads batches of {@code streamId} from {@code startOffset}: the blocks {@link ObjectIndex#find}
   * selects, trimmed to the batches that overlap {@code [startOffset, endOffset)}, continue each
   * other without a gap, and stay within {@code maxBytes} of encoded batches (a soft limit: the
   * batch that reaches it is included, so a non-empty answer has at least one batch).
   *
   * @param endOffset exclusive; {@code Long.MAX_VALUE} for no bound
   * @param maxBytes {@code > 0}
   * @return the batches, which the caller releases; see {@link ObjectReadResult}
   */
  public CompletableFuture<ObjectReadResult> read(
      long streamId, long startOffset, long endOffset, int maxBytes) {
    List<BlockLocation> blocks = index.find(streamId, startOffset, endOffset, maxBytes);
    if (blocks.isEmpty()) {
      return CompletableFuture.completedFuture(new ObjectReadResult(List.of(), startOffset));
    }
    return readBlocks(blocks).thenApply(all -> trim(all, startOffset, endOffset, maxBytes));
  }

  /**
   * Reads whole blocks and checks each against its index entry.
   *
   * @param blocks locations from this reader's {@link #index()}
   * @return every batch of those blocks, in the given order; the caller releases them
   */
  public CompletableFuture<List<RecordBatch>> readBlocks(List<BlockLocation> blocks) {
    List<Run> runs = Run.group(blocks);
    List<CompletableFuture<ByteBuf>> fetched = new ArrayList<>(runs.size());
    for (Run run : runs) {
      fetched.add(fetch(store, namespace.key(run.objectId), run.start, run.end));
    }
    return CompletableFuture.allOf(fetched.toArray(CompletableFuture<?>[]::new))
        .handle(
            (ignored, error) -> {
              try {
                if (error != null) {
                  throw asCompletion(error);
                }
                return decodeRuns(runs, fetched);
              } finally {
                for (CompletableFuture<ByteBuf> f : fetched) {
                  if (!f.isCompletedExceptionally()) {
                    f.join().release();
                  }
                }
              }
            });
  }

  private List<RecordBatch> decodeRuns(List<Run> runs, List<CompletableFuture<ByteBuf>> fetched) {
    List<RecordBatch> batches = new ArrayList<>();
    try {
      for (int i = 0; i < runs.size(); i++) {
        Run run = runs.get(i);
        ByteBuf bytes = fetched.get(i).join();
        String blockKey = namespace.key(run.objectId);
        for (IndexEntry entry : run.entries) {
          int at = bytes.readerIndex() + (int) (entry.startPosition() - run.start);
          batches.addAll(
              DataBlockCodec.decode(bytes.slice(at, entry.blockSize()), entry, blockKey));
        }
      }
      return batches;
    } catch (RuntimeException e) {
      batches.forEach(RecordBatch::release);
      throw e;
    }
  }

  private static ObjectReadResult trim(
      List<RecordBatch> all, long startOffset, long endOffset, int maxBytes) {
    List<RecordBatch> kept = new ArrayList<>();
    long nextOffset = startOffset;
    long bytes = 0;
    for (RecordBatch batch : all) {
      boolean before = batch.lastOffset() <= startOffset && batch.baseOffset() < startOffset;
      boolean wanted =
          !before
              && batch.baseOffset() <= nextOffset
              && batch.baseOffset() < endOffset
              && bytes < maxBytes;
      if (wanted) {
        kept.add(batch);
        bytes += batch.encodedSize();
        nextOffset = Math.max(nextOffset, batch.lastOffset());
      } else {
        batch.release();
      }
    }
    return new ObjectReadResult(kept, nextOffset);
  }

  private static ObjectReader decode(
      ObjectStore store,
      ObjectNamespace namespace,
      long objectId,
      String key,
      long sizeBytes,
      ByteBuf body,
      long bodyStart) {
    try {
      ObjectIndex index = ObjectIndex.decode(objectId, key, sizeBytes, body, bodyStart);
      return new ObjectReader(store, namespace, key, sizeBytes, index);
    } finally {
      body.release();
    }
  }

  /**
   * GETs {@code [start, end)} of {@code key}. A store answer that the range exceeds the object, or
   * a short answer, means the object is shorter than its metadata or index says: corrupt.
   */
  private static CompletableFuture<ByteBuf> fetch(
      ObjectStore store, String key, long start, long end) {
    CompletableFuture<ByteBuf> got;
    try {
      got = store.get(key, start, end);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return got.handle(
        (buf, error) -> {
          if (error != null) {
            Throwable cause = Causes.unwrap(error);
            if (cause instanceof ObjectStoreException e
                && e.kind() == ObjectStoreException.Kind.INVALID_ARGUMENT) {
              throw truncated(key, start, end, e);
            }
            throw asCompletion(cause);
          }
          if (buf.readableBytes() != end - start) {
            buf.release();
            throw truncated(key, start, end, null);
          }
          return buf;
        });
  }

  private static CorruptDataException truncated(String key, long start, long end, Throwable cause) {
    CorruptDataException e =
        new CorruptDataException(
            Reason.TRUNCATED,
            "object " + key + " does not hold bytes [" + start + ", " + end + ")");
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }

  private static RuntimeException asCompletion(Throwable error) {
    Throwable cause = Causes.unwrap(error);
    return cause instanceof RuntimeException r ? r : new CompletionException(cause);
  }

  /** Adjacent blocks of one object, fetched with one GET. */
  private record Run(long objectId, long start, long end, List<IndexEntry> entries) {

    static List<Run> group(List<BlockLocation> blocks) {
      List<Run> runs = new ArrayList<>();
      long objectId = -1;
      long start = 0;
      long end = 0;
      List<IndexEntry> entries = new ArrayList<>();
      for (BlockLocation block : blocks) {
        IndexEntry entry = block.entry();
        boolean adjacent = block.objectId() == objectId && entry.startPosition() == end;
        // One GET buffer must fit in an int.
        if (!adjacent || entry.endPosition() - start > Integer.MAX_VALUE) {
          if (!entries.isEmpty()) {
            runs.add(new Run(objectId, start, end, List.copyOf(entries)));
          }
          objectId = block.objectId();
          start = entry.startPosition();
          entries.clear();
        }
        entries.add(entry);
        end = entry.endPosition();
      }
      if (!entries.isEmpty()) {
        runs.add(new Run(objectId, start, end, List.copyOf(entries)));
      }
      return runs;
    }
  }
}
