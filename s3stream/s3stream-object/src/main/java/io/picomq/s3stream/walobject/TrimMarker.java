package io.picomq.s3stream.walobject;

import io.netty.buffer.Unpooled;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchHeader;

/**
 * The record a WAL appends to carry a new trim offset when it has nothing else to write: an empty
 * batch of stream -1, epoch -1. A WAL object may not be empty, so a trim is persisted as an object
 * holding only this marker, whose v1 header carries the trim offset. Recovery skips it.
 */
public final class TrimMarker {

  /** The stream id and epoch that mark the record. */
  public static final long MARKER_ID = -1;

  private TrimMarker() {}

  /** The marker batch; its payload is the shared empty buffer, so releasing it is harmless. */
  public static RecordBatch batch() {
    return new RecordBatch(MARKER_ID, MARKER_ID, 0, 0, Unpooled.EMPTY_BUFFER);
  }

  /** True if {@code header} is a trim marker's. */
  public static boolean is(RecordBatchHeader header) {
    return header.streamId() == MARKER_ID && header.epoch() == MARKER_ID;
  }
}
