package io.picomq.s3stream.api;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;

/**
 * An open stream on its owner: offsets are assigned at append time and never change; a record is
 * readable exactly when it is durable. Appends complete in offset order.
 */
public interface Stream {

  long streamId();

  /** The epoch this instance writes under. */
  long epoch();

  /** The first readable offset. */
  long startOffset();

  /** Every offset below this one is durable and readable. */
  long confirmOffset();

  /** The offset the next append will get. */
  long nextOffset();

  /**
   * Appends {@code recordCount} records whose encoded form is {@code payload}. Does not take
   * ownership of {@code payload}: the caller releases it once the future completes.
   */
  CompletableFuture<AppendOutcome> append(int recordCount, ByteBuf payload);

  /**
   * After an append ended {@link AppendOutcome.OverCapacity}, every later append to this stream
   * ends the same way (so offsets never skip a refused append's place) until this is called. It
   * refuses the appends still waiting, completes once every append taken so far has completed, and
   * then takes appends again: from then on {@link #nextOffset()} equals {@link #confirmOffset()}
   * (unless an append failed with an error, which is sticky). A caller that numbered records ahead
   * of their answers calls it before numbering again from {@link #confirmOffset()}.
   */
  CompletableFuture<Void> settle();

  /**
   * Reads batches covering {@code [startOffset, endOffset)}, stopping after about {@code maxBytes}
   * (the batch reaching the limit is included, so a non-empty range yields at least one batch). The
   * first batch holds {@code startOffset} (it may begin before it: batches are never split); the
   * batches are contiguous. {@code endOffset} beyond {@link #confirmOffset()} is clamped to it, so
   * a reader at the tail may pass {@code Long.MAX_VALUE}; a fetch at {@code confirmOffset()} yields
   * no batch. Fails with {@link IllegalArgumentException} when {@code startOffset} lies outside
   * {@code [startOffset(), confirmOffset()]}, and with {@link FastReadMissException} when {@code
   * options.fastRead()} and the data is not cached.
   */
  CompletableFuture<FetchResult> fetch(
      long startOffset, long endOffset, int maxBytes, ReadOptions options);

  /** Makes offsets below {@code newStartOffset} unreadable and their storage collectable. */
  CompletableFuture<Void> trim(long newStartOffset);

  /** Flushes what was appended into objects, then closes the stream in the metadata plane. */
  CompletableFuture<Void> close();

  /** Closes the stream and deletes it with all of its data. */
  CompletableFuture<Void> destroy();
}
