package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A batch whose records and range are final: it becomes one WAL object. Handed from the {@link
 * WalBatcher} to the {@link WalUploader}; after the hand-off only the owner thread touches it.
 */
final class SealedBatch {

  final long startOffset;

  /** Where the object's range ends: the next batch's start. */
  final long endOffset;

  /** Framed bytes of its records (header and bodies, not the object header). */
  final long sizeBytes;

  /** The trim offset its header carries. */
  final long trimOffset;

  /** Record bodies until encoded; then null (the encoded object holds them). */
  List<ByteBuf> bodies;

  final List<CompletableFuture<Void>> acks;
  final List<CompletableFuture<Void>> trimWaiters;

  // Owner thread only, after the hand-off.
  String key;

  /** The encoded object, same bytes for every attempt; null before encoding and once released. */
  ByteBuf object;

  boolean putInFlight;
  boolean stored;

  /**
   * A fence-check LIST that began after this batch was stored found no newer epoch (or the check is
   * off): its records may be acknowledged once every earlier batch may.
   */
  boolean fenceChecked;

  int attempts;

  SealedBatch(OpenBatch open, long endOffset, long trimOffset) {
    this.startOffset = open.startOffset;
    this.endOffset = endOffset;
    this.sizeBytes = open.sizeBytes;
    this.trimOffset = trimOffset;
    this.bodies = List.copyOf(open.bodies);
    this.acks = open.acks;
    this.trimWaiters = List.copyOf(open.trimWaiters);
  }

  /** Releases every buffer the batch still holds, unless a PUT may still be reading it. */
  void releaseUnlessInFlight() {
    if (putInFlight) {
      return; // released when the PUT completes
    }
    if (bodies != null) {
      bodies.forEach(ByteBuf::release);
      bodies = null;
    }
    if (object != null) {
      object.release();
      object = null;
    }
  }

  /** Fails every appender's future and every trim carried, in offset order. */
  void fail(RuntimeException error) {
    for (CompletableFuture<Void> ack : acks) {
      if (ack != null) {
        ack.completeExceptionally(error);
      }
    }
    trimWaiters.forEach(t -> t.completeExceptionally(error));
  }

  @Override
  public String toString() {
    return "batch [" + startOffset + ", " + endOffset + ") of " + acks.size() + " records";
  }
}
