package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.codec.WalRecordHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The batch records are appended to until it is sealed. Guarded by the {@link WalBatcher}'s lock.
 *
 * <p>Record {@code i} sits at WAL offset {@code startOffset + (sum of the framed sizes before it)}:
 * offsets are fixed at append time, in append order, and the object is framed in the same order.
 */
final class OpenBatch {

  final long startOffset;

  /** Record bodies, retained slices owned by the batch. */
  final List<ByteBuf> bodies = new ArrayList<>();

  /** Per body, the future its appender holds, or null for a marker record. */
  final List<CompletableFuture<Void>> acks = new ArrayList<>();

  /** Trims that complete once this batch (which carries their offset) is stored. */
  final List<CompletableFuture<Void>> trimWaiters = new ArrayList<>();

  long sizeBytes;

  OpenBatch(long startOffset) {
    this.startOffset = startOffset;
  }

  boolean isEmpty() {
    return bodies.isEmpty();
  }

  /** The offset the next record gets. */
  long nextOffset() {
    return startOffset + sizeBytes;
  }

  /** Adds a record; {@code ack} is null for a marker. Returns its offset. */
  long add(ByteBuf body, CompletableFuture<Void> ack) {
    long offset = nextOffset();
    bodies.add(body);
    acks.add(ack);
    sizeBytes += framedSize(body);
    return offset;
  }

  /** Bytes a record with this body occupies in the WAL. */
  static long framedSize(ByteBuf body) {
    return (long) WalRecordHeader.SIZE + body.readableBytes();
  }
}
