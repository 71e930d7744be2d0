package io.picomq.s3stream.api;

import java.util.List;

/**
 * Batches read from a stream, in offset order and contiguous. The caller must {@link #close()} it
 * to release the payload buffers.
 */
public interface FetchResult extends AutoCloseable {

  List<FetchedBatch> batches();

  /** Whether any byte of this result came from object storage rather than a cache. */
  boolean touchedStorage();

  @Override
  void close();
}
