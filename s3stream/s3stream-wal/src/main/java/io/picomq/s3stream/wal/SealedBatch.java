package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A batch whose records and range are final: it becomes one WAL object (one row of the Postgres
 * WAL). Handed from the {@link WalBatcher} to the owner thread ({@link WalUploader}); after the
 * hand-off only the owner thread touches it. Public for WAL implementations.
 */
public final class SealedBatch {

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

  /** The WAL offset of the first record. */
  public long startOffset() {
    return startOffset;
  }

  /** Where the batch's range ends: the next batch's start. */
  public long endOffset() {
    return endOffset;
  }

  /** Framed bytes of its records. */
  public long sizeBytes() {
    return sizeBytes;
  }

  /**
   * The record bodies in offset order, owned by the batch until {@link #releaseBodies()}; empty
   * once released.
   */
  public List<ByteBuf> bodies() {
    return bodies == null ? List.of() : bodies;
  }

  /** Releases the record bodies (the caller has encoded them, or gives up on the batch). */
  public void releaseBodies() {
    if (bodies != null) {
      bodies.forEach(ByteBuf::release);
      bodies = null;
    }
  }

  /** Completes every appender's future, in offset order: the batch is stored. */
  public void acknowledge() {
    for (CompletableFuture<Void> ack : acks) {
      if (ack != null) {
        ack.complete(null);
      }
    }
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
  public void fail(RuntimeException error) {
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
