package io.picomq.s3stream.core.upload;

import io.picomq.s3stream.core.logcache.CachedBatch;
import java.util.List;

/**
 * One stream's contiguous batches to upload, all appended under {@code epoch}.
 *
 * <p>Ownership: each batch carries a reference the uploader takes over (and releases, whatever
 * happens).
 *
 * @param batches in offset order, contiguous, at least one
 */
public record StreamData(long streamId, long epoch, List<CachedBatch> batches) {

  public StreamData {
    batches = List.copyOf(batches);
    if (batches.isEmpty()) {
      throw new IllegalArgumentException("stream " + streamId + ": nothing to upload");
    }
    for (int i = 1; i < batches.size(); i++) {
      if (batches.get(i).baseOffset() != batches.get(i - 1).nextOffset()) {
        throw new IllegalArgumentException(
            "stream "
                + streamId
                + ": batches to upload skip from "
                + batches.get(i - 1).nextOffset()
                + " to "
                + batches.get(i).baseOffset());
      }
    }
  }

  public long startOffset() {
    return batches.get(0).baseOffset();
  }

  public long endOffset() {
    return batches.get(batches.size() - 1).nextOffset();
  }

  public long sizeBytes() {
    long total = 0;
    for (CachedBatch b : batches) {
      total += b.sizeBytes();
    }
    return total;
  }

  /** Releases every batch's reference. */
  public void release() {
    batches.forEach(CachedBatch::release);
  }
}
