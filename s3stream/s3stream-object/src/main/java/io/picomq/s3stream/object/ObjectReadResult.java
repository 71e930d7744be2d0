package io.picomq.s3stream.object;

import io.picomq.s3stream.codec.RecordBatch;
import java.util.List;

/**
 * What {@link ObjectReader#read} found: batches covering offsets from the requested start up to
 * {@code nextOffset} without a gap.
 *
 * <p>The first batch may begin before the requested start (a batch is never split). {@code
 * nextOffset} equals the requested start when the object holds nothing from there; it is below the
 * requested end when the byte limit was reached or the object's data for the stream ends (or has a
 * gap) earlier, and the caller continues from it elsewhere.
 *
 * <p>Ownership: the holder releases every batch ({@link #release()}).
 *
 * @param batches in offset order
 * @param nextOffset the offset after the last batch, where the next read continues
 */
public record ObjectReadResult(List<RecordBatch> batches, long nextOffset) {

  public ObjectReadResult {
    batches = List.copyOf(batches);
  }

  /** Releases every batch's payload. */
  public void release() {
    batches.forEach(RecordBatch::release);
  }
}
