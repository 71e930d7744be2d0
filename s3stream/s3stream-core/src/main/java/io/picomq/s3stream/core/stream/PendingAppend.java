package io.picomq.s3stream.core.stream;

import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.core.logcache.CacheBlock;
import java.util.concurrent.CompletableFuture;

/**
 * An append the WAL accepted and has not yet confirmed: the {@link Confirmer} completes it once it
 * and every earlier append are durable.
 */
final class PendingAppend {
  final OpenStream stream;
  final long baseOffset;
  final int count;
  final int sizeBytes;
  final CacheBlock block;
  final CompletableFuture<AppendOutcome> outcome;
  final long startedNanos;

  // Written by the WAL's completion, read by the confirmer.
  private volatile boolean durable;
  private volatile Throwable error;

  PendingAppend(
      OpenStream stream,
      long baseOffset,
      int count,
      int sizeBytes,
      CacheBlock block,
      CompletableFuture<AppendOutcome> outcome,
      long startedNanos) {
    this.stream = stream;
    this.baseOffset = baseOffset;
    this.count = count;
    this.sizeBytes = sizeBytes;
    this.block = block;
    this.outcome = outcome;
    this.startedNanos = startedNanos;
  }

  long nextOffset() {
    return baseOffset + count;
  }

  /** The WAL answered; {@code failure} is null when the record is durable. */
  void walDone(Throwable failure) {
    error = failure;
    durable = true;
  }

  boolean isDone() {
    return durable;
  }

  Throwable error() {
    return error;
  }
}
