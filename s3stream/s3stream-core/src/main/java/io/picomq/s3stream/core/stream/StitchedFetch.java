package io.picomq.s3stream.core.stream;

import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A fetch answer assembled from the log cache and committed objects. It owns one reference to each
 * payload and releases them on the first {@link #close()}.
 */
final class StitchedFetch implements FetchResult {

  private final List<FetchedBatch> batches;
  private final boolean touchedStorage;
  private final AtomicBoolean closed = new AtomicBoolean();

  StitchedFetch(List<FetchedBatch> batches, boolean touchedStorage) {
    this.batches = List.copyOf(batches);
    this.touchedStorage = touchedStorage;
  }

  @Override
  public List<FetchedBatch> batches() {
    return batches;
  }

  @Override
  public boolean touchedStorage() {
    return touchedStorage;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      batches.forEach(b -> b.payload().release());
    }
  }
}
