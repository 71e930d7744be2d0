package io.picomq.s3stream.core.stream;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamManager;
import io.picomq.s3stream.api.StreamMetadata;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream open on this node at one epoch.
 *
 * <p>Offsets, lowest to highest: {@code startOffset <= committedOffset <= confirmOffset <=
 * nextOffset}. Everything below {@code committedOffset} is in committed objects; everything below
 * {@code confirmOffset} is durable (WAL or objects) and readable; {@code nextOffset} is what the
 * next append gets. Each has one writer: the write path assigns {@code nextOffset} under its lock,
 * the confirmer raises {@code confirmOffset}, the upload pipeline raises {@code committedOffset},
 * trim raises {@code startOffset}.
 */
public final class OpenStream implements Stream {
  private static final Logger LOG = LoggerFactory.getLogger(OpenStream.class);

  private final long streamId;
  private final long epoch;
  private final WritePath writePath;
  private final Fetcher fetcher;
  private final StreamManager streamManager;
  private final Consumer<OpenStream> onClosed;
  private final AtomicLong startOffset;
  private final CompletableFuture<Void> closed = new CompletableFuture<>();

  /** Guarded by the write path's lock. */
  long nextOffset;

  /** Guarded by the write path's lock: what every append ends with until settled, or null. */
  AppendOutcome.OverCapacity refusal;

  /** Guarded by the write path's lock: the outcome of the last append the WAL took, or null. */
  CompletableFuture<AppendOutcome> lastAccepted;

  /** Written under the write path's lock, read by anyone. */
  volatile StreamState state = StreamState.OPEN;

  private volatile long confirmOffset;
  private volatile long committedOffset;

  /**
   * @param opened what the metadata plane answered to the open: epoch and offsets
   * @param onClosed told once the stream is closed (or gave up closing)
   */
  public OpenStream(
      StreamMetadata opened,
      WritePath writePath,
      Fetcher fetcher,
      StreamManager streamManager,
      Consumer<OpenStream> onClosed) {
    this.streamId = opened.streamId();
    this.epoch = opened.epoch();
    this.writePath = Objects.requireNonNull(writePath, "writePath");
    this.fetcher = Objects.requireNonNull(fetcher, "fetcher");
    this.streamManager = Objects.requireNonNull(streamManager, "streamManager");
    this.onClosed = Objects.requireNonNull(onClosed, "onClosed");
    this.startOffset = new AtomicLong(opened.startOffset());
    this.nextOffset = opened.endOffset();
    this.confirmOffset = opened.endOffset();
    this.committedOffset = opened.endOffset();
  }

  @Override
  public long streamId() {
    return streamId;
  }

  @Override
  public long epoch() {
    return epoch;
  }

  @Override
  public long startOffset() {
    return startOffset.get();
  }

  @Override
  public long confirmOffset() {
    return confirmOffset;
  }

  /** Every offset below this is in committed objects. */
  public long committedOffset() {
    return committedOffset;
  }

  @Override
  public long nextOffset() {
    return writePath.nextOffsetOf(this);
  }

  /** Whether close() has begun or finished. */
  public boolean isClosing() {
    return state != StreamState.OPEN;
  }

  /** Completes once the stream is closed in the metadata plane. */
  public CompletableFuture<Void> closedFuture() {
    return closed.copy();
  }

  @Override
  public CompletableFuture<AppendOutcome> append(int recordCount, ByteBuf payload) {
    Objects.requireNonNull(payload, "payload");
    return writePath.append(this, recordCount, payload);
  }

  @Override
  public CompletableFuture<Void> settle() {
    return writePath.settle(this);
  }

  @Override
  public CompletableFuture<FetchResult> fetch(
      long startOffset, long endOffset, int maxBytes, ReadOptions options) {
    return fetcher.fetch(this, startOffset, endOffset, maxBytes, options);
  }

  @Override
  public CompletableFuture<Void> trim(long newStartOffset) {
    if (newStartOffset > confirmOffset) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              "stream "
                  + streamId
                  + ": cannot trim to "
                  + newStartOffset
                  + ", beyond the confirm offset "
                  + confirmOffset));
    }
    if (newStartOffset <= startOffset.get()) {
      return CompletableFuture.completedFuture(null);
    }
    // The metadata plane trims only committed offsets: commit what the trim covers first.
    CompletableFuture<Void> committed =
        newStartOffset <= committedOffset
            ? CompletableFuture.completedFuture(null)
            : writePath.flush();
    return committed
        .thenCompose(ignored -> streamManager.trimStream(streamId, epoch, newStartOffset))
        .thenRun(() -> startOffset.accumulateAndGet(newStartOffset, Math::max));
  }

  @Override
  public CompletableFuture<Void> close() {
    if (!writePath.beginClose(this)) {
      return closed.copy();
    }
    // Only once everything appended is committed may the metadata plane close the stream: a
    // closed stream is not recovered, so uncommitted records would be lost. The close is offered
    // right behind the commit of the last records, expecting the end offset that commit brings, so
    // the plane refuses it unless that commit applied first; refused (or a plane that cannot close
    // at an offset), it is offered again once the commit completed, as a plain close.
    long endOffset = writePath.nextOffsetOf(this); // final: no append is taken once closing
    long started = System.nanoTime();
    AtomicLong offeredAt = new AtomicLong();
    WritePath.Flush flush = writePath.flushOffering();
    CompletableFuture<Void> closedAtEnd =
        flush
            .offered()
            .thenCompose(
                ignored -> {
                  offeredAt.set(System.nanoTime());
                  return streamManager.closeStreamAt(streamId, epoch, endOffset);
                });
    closedAtEnd
        .handle((ignored, refused) -> refused)
        .thenCompose(
            refused ->
                refused == null
                    ? flush.committed()
                    : flush
                        .committed()
                        .thenCompose(ignored -> streamManager.closeStream(streamId, epoch)))
        .whenComplete(
            (ignored, error) -> {
              // Where a close's time goes (a transfer's handoff waits for all of it): sealing the
              // block, the WAL confirming it and its object written, then the log.
              if (LOG.isDebugEnabled() && offeredAt.get() != 0) {
                LOG.debug(
                    "stream {}@{} closed at {}: commit offered after {} ms, closed {} ms later{}",
                    streamId,
                    epoch,
                    endOffset,
                    (offeredAt.get() - started) / 1_000_000,
                    (System.nanoTime() - offeredAt.get()) / 1_000_000,
                    closedAtEnd.isCompletedExceptionally() ? " (after the commit completed)" : "");
              }
              state = StreamState.CLOSED;
              onClosed.accept(this);
              if (error != null) {
                closed.completeExceptionally(Causes.unwrap(error));
              } else {
                closed.complete(null);
              }
            });
    return closed.copy();
  }

  @Override
  public CompletableFuture<Void> destroy() {
    return close().thenCompose(ignored -> streamManager.deleteStream(streamId, epoch));
  }

  /** The confirmer: offsets below {@code offset} are durable. */
  void confirmed(long offset) {
    confirmOffset = offset;
  }

  /** The upload pipeline: offsets below {@code offset} are committed. */
  public void committed(long offset) {
    if (offset > committedOffset) {
      committedOffset = offset;
    }
  }

  @Override
  public String toString() {
    return "OpenStream[" + streamId + "@" + epoch + ", " + state + "]";
  }
}
