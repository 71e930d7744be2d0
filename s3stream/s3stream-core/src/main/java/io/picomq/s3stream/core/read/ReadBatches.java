package io.picomq.s3stream.core.read;

import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Batches of one stream read from committed objects: in offset order, each starting where the
 * previous one ends. The first batch holds the requested start offset and may begin before it (a
 * batch is never split); {@link #nextOffset()} is where a following read continues.
 *
 * <p>Ownership: this result owns one reference to each batch payload; {@link #close()} releases
 * them (once; later calls do nothing). A caller that hands a payload on past the close retains it
 * first. Payloads are slices of the block cache's memory, shared with its pages and other readers:
 * never write into them. Holding one keeps the bytes of the GET it came from alive, also after the
 * cache evicted them, so close results promptly.
 */
public final class ReadBatches implements FetchResult {

  private final long streamId;
  private final List<FetchedBatch> batches;
  private final long nextOffset;
  private final boolean touchedStorage;
  private final AtomicBoolean closed = new AtomicBoolean();

  ReadBatches(long streamId, List<FetchedBatch> batches, long nextOffset, boolean touchedStorage) {
    this.streamId = streamId;
    this.batches = List.copyOf(batches);
    this.nextOffset = nextOffset;
    this.touchedStorage = touchedStorage;
  }

  public long streamId() {
    return streamId;
  }

  @Override
  public List<FetchedBatch> batches() {
    return batches;
  }

  /** The offset after the last batch; the requested start when there is none. */
  public long nextOffset() {
    return nextOffset;
  }

  /** Whether some byte came from object storage rather than the block cache. */
  @Override
  public boolean touchedStorage() {
    return touchedStorage;
  }

  /** Bytes of the batch payloads. */
  public long payloadBytes() {
    long total = 0;
    for (FetchedBatch batch : batches) {
      total += batch.payload().readableBytes();
    }
    return total;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      batches.forEach(batch -> batch.payload().release());
    }
  }

  @Override
  public String toString() {
    return "ReadBatches[stream "
        + streamId
        + ", "
        + batches.size()
        + " batches up to offset "
        + nextOffset
        + "]";
  }
}
