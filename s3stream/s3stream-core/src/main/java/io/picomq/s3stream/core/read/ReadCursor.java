package io.picomq.s3stream.core.read;

import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.codec.RecordBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * The progress of one read of {@code [startOffset, endOffset)} of a stream: the batches kept so far
 * and the offset where the next one must begin.
 *
 * <p>{@link #accept} keeps exactly the batches a reader wants, in the order the objects hold them:
 *
 * <pre>
 *   reading [15, 40), maxBytes large; batches [0,10) [10,20) [20,30) [30,45) [45,50)
 *   [0,10)   ends at or before 15   -> skipped
 *   [10,20)  holds 15               -> kept (a batch is never split: the result starts at 10)
 *   [20,30)  begins at next = 20    -> kept
 *   [30,45)  begins at next = 30    -> kept, next = 45 >= 40: done
 *   [45,50)  after done             -> skipped
 *   a batch beginning after next (say [22,30) when next = 20) is a gap: IllegalStateException
 * </pre>
 *
 * The byte limit is soft: batches are kept until their encoded bytes reach {@code maxBytes}, the
 * one that reaches it included, so a read that finds data returns at least one batch.
 *
 * <p>Threading: owned by the one read it tracks, which hands it along its chain of futures.
 */
final class ReadCursor {
  final long streamId;
  final long startOffset;
  final long endOffset;
  final int maxBytes;
  final boolean fastRead;

  private final List<FetchedBatch> batches = new ArrayList<>();
  private long nextOffset;
  private long bytes;
  private boolean touchedStorage;

  ReadCursor(long streamId, long startOffset, long endOffset, int maxBytes, boolean fastRead) {
    this.streamId = streamId;
    this.startOffset = startOffset;
    this.endOffset = endOffset;
    this.maxBytes = maxBytes;
    this.fastRead = fastRead;
    this.nextOffset = startOffset;
  }

  long nextOffset() {
    return nextOffset;
  }

  /** Bytes still wanted, {@code >= 1} unless {@link #done()}. */
  int remainingBytes() {
    return (int) Math.max(0, maxBytes - bytes);
  }

  boolean done() {
    return nextOffset >= endOffset || bytes >= maxBytes;
  }

  void touchedStorage() {
    touchedStorage = true;
  }

  /**
   * Keeps {@code batch} if the reader wants it, else releases it; see the class comment.
   *
   * @param batch taken over: kept or released, also when this throws
   * @param objectKey the object the batch came from, named in errors
   * @throws IllegalStateException if the batch begins after the next offset (a gap), or is a link
   *     record, which the read path cannot follow
   */
  void accept(RecordBatch batch, String objectKey) {
    if (batch.isLink()) {
      batch.release();
      throw new IllegalStateException(
          "stream "
              + streamId
              + ": object "
              + objectKey
              + " holds a link record at offset "
              + batch.baseOffset()
              + "; the read path does not follow links");
    }
    if (done() || batch.lastOffset() <= nextOffset) {
      batch.release();
      return;
    }
    if (batch.baseOffset() > nextOffset) {
      batch.release();
      throw new IllegalStateException(
          "stream "
              + streamId
              + ": gap in object "
              + objectKey
              + ": expected offset "
              + nextOffset
              + " but the next batch begins at "
              + batch.baseOffset()
              + " (reading ["
              + startOffset
              + ", "
              + endOffset
              + "))");
    }
    batches.add(new FetchedBatch(batch.baseOffset(), batch.count(), batch.payload()));
    nextOffset = batch.lastOffset();
    bytes += batch.encodedSize();
  }

  /** The result; the cursor's batches now belong to it. */
  ReadBatches result() {
    return new ReadBatches(streamId, batches, nextOffset, touchedStorage);
  }

  /** Releases the batches kept so far, after a failed read. */
  void release() {
    batches.forEach(batch -> batch.payload().release());
    batches.clear();
  }
}
