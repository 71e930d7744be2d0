package io.picomq.s3stream.core.stream;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.time.Scheduler;
import java.util.concurrent.CompletableFuture;

/**
 * An append waiting for room (a full log cache, or a WAL over capacity). It holds its encoded batch
 * (released if it never gets in) and expires after the configured wait.
 */
final class WaitingAppend {
  final OpenStream stream;
  final int count;
  final ByteBuf encoded;
  final CompletableFuture<AppendOutcome> outcome;
  final long startedNanos;

  // Set right after it is queued, under the write path's lock.
  Scheduler.Cancellable expiry;

  // Why it waits (what it ends with if the wait runs out); guarded by the write path's lock.
  AppendOutcome.OverCapacity reason;

  WaitingAppend(
      OpenStream stream,
      int count,
      ByteBuf encoded,
      CompletableFuture<AppendOutcome> outcome,
      long startedNanos) {
    this.stream = stream;
    this.count = count;
    this.encoded = encoded;
    this.outcome = outcome;
    this.startedNanos = startedNanos;
  }
}
