package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.codec.RecordBatchHeader;
import io.picomq.s3stream.walobject.TrimMarker;

/**
 * The body of the record a WAL writes when it must store an object with nothing to say but its
 * header (a new trim offset, or a fence point): an encoded {@link TrimMarker} batch. Recovery skips
 * such records, so appending a body that looks like one is refused.
 */
final class TrimMarkerBody {

  /** The encoded marker; read-only and shared, so it never needs releasing. */
  private static final ByteBuf MARKER =
      Unpooled.unreleasableBuffer(
          RecordBatchCodec.encode(TrimMarker.batch(), UnpooledByteBufAllocator.DEFAULT)
              .asReadOnly());

  /** Bytes of the marker body. */
  static final int SIZE = MARKER.readableBytes();

  private TrimMarkerBody() {}

  /** A view of the marker body; releasing it is harmless and not required. */
  static ByteBuf body() {
    return MARKER.duplicate();
  }

  /** True if {@code body}'s readable bytes are a trim marker batch. Moves no index. */
  static boolean is(ByteBuf body) {
    if (body.readableBytes() != SIZE) {
      return false;
    }
    try {
      RecordBatchHeader header = RecordBatchCodec.readHeader(body, body.readerIndex());
      return TrimMarker.is(header);
    } catch (CorruptDataException notABatch) {
      return false;
    }
  }
}
