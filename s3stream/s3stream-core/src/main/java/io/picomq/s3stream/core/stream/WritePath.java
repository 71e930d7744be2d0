package io.picomq.s3stream.core.stream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.codec.RecordBatchHeader;
import io.picomq.s3stream.core.logcache.CacheBlock;
import io.picomq.s3stream.core.logcache.CachedBatch;
import io.picomq.s3stream.core.logcache.LogCache;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import io.picomq.s3stream.core.upload.UploadPipeline;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.WalAppendResult;
import io.picomq.s3stream.wal.WalClosedException;
import io.picomq.s3stream.wal.WalFencedException;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The write path: turns {@code Stream.append} into a record batch in the WAL and the log cache.
 *
 * <h2>Design</h2>
 *
 * <p>One lock, {@link #lock}, orders every append of the node. Under it, and only in memory: the
 * stream's next offset is assigned, the batch (encoded before the lock) gets its base offset, the
 * WAL fixes the record's position ({@link WriteAheadLog#append} never blocks), the batch goes into
 * the log cache's open block and the append joins the {@link Confirmer}'s queue. Holding the lock
 * across these steps is what makes three orders agree: per stream, offset order = WAL order; each
 * log cache block is a contiguous WAL range (so trimming the WAL to a block's last record is safe);
 * the confirm queue is in WAL order. Sealing a block and handing it to the {@link UploadPipeline}
 * happen under the lock too, so blocks reach the pipeline in seal order.
 *
 * <p>Admission: an append needs room in the log cache for its bytes. When the cache is full the
 * write path first evicts committed blocks; if that is not enough it seals the open block (a forced
 * upload, which frees room once committed) and the append waits in {@link #waiting}, a FIFO bounded
 * by {@code maxWaitingAppends}, for at most {@code appendWaitMillis}; beyond either bound it ends
 * {@link AppendOutcome.OverCapacity}. A WAL over capacity is handled the same way (forced upload,
 * wait, retry). While any append waits, new appends queue behind it, so appends of a stream keep
 * their call order. Waiting appends are retried after each confirmation drain and each commit.
 *
 * <p>A refusal closes the stream's prefix: once an append of a stream ends {@link
 * AppendOutcome.OverCapacity}, its appends that wait behind it and every later one end the same way
 * until the caller {@link #settle settles} the stream. So the offsets a stream's appends get are
 * always the running sum of the counts the caller handed in before the first refusal: a caller that
 * numbers its records ahead of the answers (the host does) never sees a later append land at an
 * offset it had given to a refused one.
 *
 * <p>Failure: a fenced WAL or commit fences the whole write path (every later append ends {@link
 * AppendOutcome.Fenced}); a failed WAL or upload is sticky (every later append fails with it).
 *
 * <p>Threading: any thread may append. Futures are completed after the lock is released (rejections
 * by the caller's thread, acknowledgements by the confirmer, on the thread the WAL answered on).
 */
public final class WritePath {

  /** Where the base offset sits in an encoded batch (after magic, stream id and epoch). */
  private static final int BASE_OFFSET_INDEX = 1 + 8 + 8;

  private final WriteAheadLog wal;
  private final LogCache cache;
  private final UploadPipeline pipeline;
  private final Scheduler scheduler;
  private final ByteBufAllocator allocator;
  private final EngineMetrics metrics;
  private final Confirmer confirmer;
  private final long uploadThresholdBytes;
  private final long appendWaitNanos;
  private final int maxWaitingAppends;
  private final long maxBatchBytes;
  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock.
  private final ArrayDeque<WaitingAppend> waiting = new ArrayDeque<>();
  private boolean shutDown;

  // Written under lock (or by failure callbacks), read by anyone.
  private volatile int waitingCount;
  private volatile boolean fenced;
  private volatile Throwable failure;

  /**
   * @param uploadThresholdBytes the open block is sealed once it holds this many bytes
   * @param appendWaitNanos how long an append may wait for room; 0 means never wait
   */
  public WritePath(
      WriteAheadLog wal,
      LogCache cache,
      UploadPipeline pipeline,
      Scheduler scheduler,
      ByteBufAllocator allocator,
      EngineMetrics metrics,
      long uploadThresholdBytes,
      long appendWaitNanos,
      int maxWaitingAppends) {
    this.wal = wal;
    this.cache = cache;
    this.pipeline = pipeline;
    this.scheduler = scheduler;
    this.allocator = allocator;
    this.metrics = metrics;
    this.uploadThresholdBytes = uploadThresholdBytes;
    this.appendWaitNanos = appendWaitNanos;
    this.maxWaitingAppends = maxWaitingAppends;
    this.maxBatchBytes = cache.capacityBytes() / 2;
    this.confirmer = new Confirmer(metrics, this::walFailed, this::retryWaiting);
  }

  /** Appends to {@code stream}; see {@code Stream.append}. */
  CompletableFuture<AppendOutcome> append(OpenStream stream, int count, ByteBuf payload) {
    if (count <= 0) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("stream " + stream.streamId() + ": count must be > 0"));
    }
    long startedNanos = System.nanoTime();
    int size = RecordBatchHeader.SIZE + payload.readableBytes();
    if (size > maxBatchBytes) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              "stream "
                  + stream.streamId()
                  + ": a batch of "
                  + size
                  + " bytes exceeds half the log cache ("
                  + maxBatchBytes
                  + " bytes)"));
    }
    ByteBuf encoded = frame(stream, count, payload);
    CompletableFuture<AppendOutcome> outcome = new CompletableFuture<>();
    WaitingAppend request = new WaitingAppend(stream, count, encoded, outcome, startedNanos);
    Attempt attempt;
    lock.lock();
    try {
      attempt = admit(request);
    } finally {
      lock.unlock();
    }
    attempt.finish();
    return outcome;
  }

  /**
   * The batch as the WAL and the log cache hold it: its header, then the caller's payload by
   * reference. The payload is not copied (the body's only copies are the host's, before this); the
   * engine keeps its own reference, so the caller may release its one as the contract says.
   */
  private ByteBuf frame(OpenStream stream, int count, ByteBuf payload) {
    ByteBuf header = allocator.buffer(RecordBatchHeader.SIZE, RecordBatchHeader.SIZE);
    RecordBatchCodec.encodeHeaderTo(
        new RecordBatch(stream.streamId(), stream.epoch(), 0, count, payload), header);
    CompositeByteBuf encoded = allocator.compositeBuffer(2);
    encoded.addComponents(true, header, payload.retainedSlice());
    return encoded;
  }

  /** The offset the next append to {@code stream} would get. */
  long nextOffsetOf(OpenStream stream) {
    lock.lock();
    try {
      return stream.nextOffset;
    } finally {
      lock.unlock();
    }
  }

  /** Marks {@code stream} closing: later appends end {@link AppendOutcome.Closed}. */
  boolean beginClose(OpenStream stream) {
    lock.lock();
    try {
      if (stream.state != StreamState.OPEN) {
        return false;
      }
      stream.state = StreamState.CLOSING;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Brings {@code stream}'s offsets back in step with its caller: refuses its waiting appends (and
   * any made meanwhile) with {@link AppendOutcome.OverCapacity}, waits until every append it
   * accepted has completed, then takes appends again. Afterwards the next append gets {@link
   * OpenStream#confirmOffset()}, unless an accepted append failed (a sticky failure: later appends
   * fail too). See the class comment for why a refusal holds until this.
   */
  CompletableFuture<Void> settle(OpenStream stream) {
    List<WaitingAppend> refused;
    AppendOutcome.OverCapacity reason = cacheFull();
    CompletableFuture<AppendOutcome> last;
    lock.lock();
    try {
      if (stream.refusal != null) {
        reason = stream.refusal;
      }
      refused = refuseFrom(stream, reason);
      last = stream.lastAccepted;
    } finally {
      lock.unlock();
    }
    AppendOutcome.OverCapacity refusedWith = reason;
    refused.forEach(w -> endWaiting(w, refusedWith));
    CompletableFuture<?> accepted = last != null ? last : CompletableFuture.completedFuture(null);
    return accepted.handle(
        (ignored, error) -> {
          lock.lock();
          try {
            stream.refusal = null;
          } finally {
            lock.unlock();
          }
          return null;
        });
  }

  /**
   * Seals the open block and returns when everything appended so far is committed (a forced upload:
   * stream close, trim, shutdown).
   */
  public CompletableFuture<Void> flush() {
    lock.lock();
    try {
      return sealAndSubmit();
    } finally {
      lock.unlock();
    }
  }

  /** What {@link #flushOffering} started: when its commit was offered, and when it completed. */
  public record Flush(CompletableFuture<Void> offered, CompletableFuture<Void> committed) {}

  /**
   * As {@link #flush}, and also tells when the commit covering everything appended so far was
   * offered to the metadata plane, before it completes: what a close may follow at once.
   */
  Flush flushOffering() {
    lock.lock();
    try {
      // Under this lock no other block is submitted in between: the last offered is this one.
      CompletableFuture<Void> committed = sealAndSubmit();
      return new Flush(pipeline.commitOffered(), committed);
    } finally {
      lock.unlock();
    }
  }

  /** Seals the open block if it is not empty and was opened at least {@code ageNanos} ago. */
  public void sealIfOlderThan(long ageNanos) {
    lock.lock();
    try {
      CacheBlock open = cache.openBlock();
      if (!open.isEmpty() && scheduler.nanoTime() - open.openedNanos() >= ageNanos) {
        sealAndSubmit();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops taking appends: waiting appends end {@link AppendOutcome.Closed}, the open block is
   * sealed.
   *
   * @return completes once everything appended is committed
   */
  public CompletableFuture<Void> shutdown() {
    List<WaitingAppend> dropped;
    CompletableFuture<Void> flushed;
    lock.lock();
    try {
      shutDown = true;
      dropped = new ArrayList<>(waiting);
      waiting.clear();
      waitingCount = 0;
      flushed = sealAndSubmit();
    } finally {
      lock.unlock();
    }
    for (WaitingAppend w : dropped) {
      w.expiry.cancel();
      w.encoded.release();
      metrics.appendClosed.increment();
      w.outcome.complete(new AppendOutcome.Closed());
    }
    return flushed;
  }

  /**
   * The upload pipeline stopped, or the WAL failed: every later append fails with {@code error}.
   */
  public void fail(Throwable error) {
    if (failure == null) {
      failure = error;
    }
  }

  /**
   * The node was fenced (WAL or metadata): every later append ends {@link AppendOutcome.Fenced}.
   */
  public void fence() {
    fenced = true;
  }

  public boolean isFenced() {
    return fenced;
  }

  /** Retries waiting appends, in order, while they fit. */
  public void retryWaiting() {
    if (waitingCount == 0) {
      return;
    }
    List<Attempt> done = new ArrayList<>();
    lock.lock();
    try {
      while (!waiting.isEmpty()) {
        WaitingAppend w = waiting.peek();
        Attempt refused = refusal(w);
        if (refused == null) {
          if (!hasRoom(w.encoded.readableBytes())) {
            w.reason = cacheFull();
            break;
          }
          Attempt attempt = tryAppend(w);
          if (attempt instanceof WalFull walFull) {
            w.reason = walFull.outcome;
            break;
          }
          refused = attempt;
        }
        waiting.poll();
        w.expiry.cancel();
        done.add(refused);
      }
      waitingCount = waiting.size();
    } finally {
      lock.unlock();
    }
    done.forEach(Attempt::finish);
  }

  // ---- under lock ----

  private Attempt admit(WaitingAppend request) {
    Attempt refused = refusal(request);
    if (refused != null) {
      return refused;
    }
    int size = request.encoded.readableBytes();
    if (!waiting.isEmpty()) {
      // Behind others, for their reason: appends keep their call order.
      request.reason = waiting.peekLast().reason;
    } else if (hasRoom(size)) {
      Attempt attempt = tryAppend(request);
      if (!(attempt instanceof WalFull walFull)) {
        return attempt;
      }
      request.reason = walFull.outcome;
    } else {
      request.reason = cacheFull();
    }
    if (request.reason.limitBytes() == cache.capacityBytes()) {
      metrics.backpressureLogCacheFull.increment();
    } else {
      metrics.backpressureWalOverCapacity.increment();
    }
    // A forced upload: room comes back once the sealed block is committed.
    if (!cache.openBlock().isEmpty()) {
      sealAndSubmit();
    }
    if (appendWaitNanos == 0 || waiting.size() >= maxWaitingAppends) {
      request.encoded.release();
      request.stream.refusal = request.reason;
      return new Ended(request.outcome, request.reason, metrics);
    }
    waiting.add(request);
    waitingCount = waiting.size();
    request.expiry = scheduler.schedule(() -> expire(request), appendWaitNanos);
    return Queued.INSTANCE;
  }

  private AppendOutcome.OverCapacity cacheFull() {
    return new AppendOutcome.OverCapacity(cache.sizeBytes(), cache.capacityBytes());
  }

  /** Why {@code request} cannot be appended at all now, or null. */
  private Attempt refusal(WaitingAppend request) {
    AppendOutcome refusal = null;
    if (failure != null) {
      request.encoded.release();
      return new Errored(request.outcome, failure, metrics);
    } else if (fenced) {
      refusal = new AppendOutcome.Fenced(request.stream.epoch());
    } else if (shutDown || request.stream.state != StreamState.OPEN) {
      refusal = new AppendOutcome.Closed();
    } else if (request.stream.refusal != null) {
      refusal = request.stream.refusal;
    }
    if (refusal == null) {
      return null;
    }
    request.encoded.release();
    return new Ended(request.outcome, refusal, metrics);
  }

  private boolean hasRoom(int size) {
    long capacity = cache.capacityBytes();
    if (cache.sizeBytes() + size <= capacity) {
      return true;
    }
    cache.evictCommitted(capacity - size);
    return cache.sizeBytes() + size <= capacity;
  }

  private Attempt tryAppend(WaitingAppend request) {
    OpenStream stream = request.stream;
    ByteBuf encoded = request.encoded;
    long base = stream.nextOffset;
    encoded.setLong(encoded.readerIndex() + BASE_OFFSET_INDEX, base);
    WalAppendResult result;
    try {
      result = wal.append(encoded);
    } catch (RuntimeException e) {
      encoded.release();
      return new Errored(request.outcome, e, metrics);
    }
    return switch (result) {
      case WalAppendResult.Accepted accepted -> {
        stream.nextOffset = base + request.count;
        CachedBatch batch = new CachedBatch(base, request.count, encoded);
        int size = batch.sizeBytes();
        CacheBlock block = cache.put(stream.streamId(), stream.epoch(), batch, accepted.offset());
        PendingAppend pending =
            new PendingAppend(
                stream, base, request.count, size, block, request.outcome, request.startedNanos);
        confirmer.add(pending);
        stream.lastAccepted = request.outcome;
        if (block.sizeBytes() >= uploadThresholdBytes) {
          sealAndSubmit();
        }
        yield new Accepted(confirmer, pending, accepted.durable());
      }
      case WalAppendResult.OverCapacity over ->
          new WalFull(new AppendOutcome.OverCapacity(over.unflushedBytes(), over.limitBytes()));
      case WalAppendResult.Fenced f -> {
        fenced = true;
        encoded.release();
        yield new Ended(request.outcome, new AppendOutcome.Fenced(stream.epoch()), metrics);
      }
      case WalAppendResult.Closed c -> {
        encoded.release();
        yield new Ended(request.outcome, new AppendOutcome.Closed(), metrics);
      }
      case WalAppendResult.Failed f -> {
        fail(f.error());
        encoded.release();
        yield new Errored(request.outcome, f.error(), metrics);
      }
    };
  }

  private CompletableFuture<Void> sealAndSubmit() {
    return pipeline.submit(cache.seal(scheduler.nanoTime()));
  }

  // ---- any thread ----

  private void expire(WaitingAppend request) {
    List<WaitingAppend> refused;
    AppendOutcome.OverCapacity reason;
    lock.lock();
    try {
      if (!waiting.contains(request)) {
        return; // admitted, or refused with its stream, meanwhile
      }
      reason = request.reason;
      refused = refuseFrom(request.stream, reason);
    } finally {
      lock.unlock();
    }
    refused.forEach(w -> endWaiting(w, reason));
  }

  /**
   * Under the lock: from now on {@code stream}'s appends end {@code reason} until {@link #settle};
   * takes its waiting appends out of the queue for the caller to end (after the lock).
   */
  private List<WaitingAppend> refuseFrom(OpenStream stream, AppendOutcome.OverCapacity reason) {
    stream.refusal = reason;
    List<WaitingAppend> refused = new ArrayList<>();
    waiting.removeIf(
        w -> {
          if (w.stream != stream) {
            return false;
          }
          refused.add(w);
          return true;
        });
    waitingCount = waiting.size();
    return refused;
  }

  private void endWaiting(WaitingAppend w, AppendOutcome.OverCapacity reason) {
    w.expiry.cancel();
    w.encoded.release();
    metrics.appendOverCapacity.increment();
    w.outcome.complete(reason);
  }

  private void walFailed(Throwable error) {
    switch (error) {
      case WalFencedException f -> fence();
      case WalClosedException c -> {}
      default -> fail(error);
    }
  }

  /** What became of an append under the lock; {@link #finish} runs after the lock is released. */
  private sealed interface Attempt {
    void finish();
  }

  /** The WAL took it: hear its answer. */
  private record Accepted(
      Confirmer confirmer, PendingAppend pending, CompletableFuture<Void> durable)
      implements Attempt {
    @Override
    public void finish() {
      durable.whenComplete(
          (ignored, error) ->
              confirmer.walAnswered(pending, error == null ? null : Causes.unwrap(error)));
    }
  }

  /** It ended without being appended. */
  private record Ended(
      CompletableFuture<AppendOutcome> outcome, AppendOutcome value, EngineMetrics metrics)
      implements Attempt {
    @Override
    public void finish() {
      switch (value) {
        case AppendOutcome.Fenced f -> metrics.appendFenced.increment();
        case AppendOutcome.OverCapacity o -> metrics.appendOverCapacity.increment();
        case AppendOutcome.Closed c -> metrics.appendClosed.increment();
        case AppendOutcome.Appended a -> {}
      }
      outcome.complete(value);
    }
  }

  /** It failed with an error (a bug, or a sticky storage failure). */
  private record Errored(
      CompletableFuture<AppendOutcome> outcome, Throwable error, EngineMetrics metrics)
      implements Attempt {
    @Override
    public void finish() {
      metrics.appendFailed.increment();
      outcome.completeExceptionally(error);
    }
  }

  /** It waits for room. */
  private enum Queued implements Attempt {
    INSTANCE;

    @Override
    public void finish() {}
  }

  /** The WAL has too many unstored bytes: wait (only seen under the lock). */
  private record WalFull(AppendOutcome.OverCapacity outcome) implements Attempt {
    @Override
    public void finish() {
      throw new IllegalStateException("a full WAL is handled under the lock");
    }
  }
}
