package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link WriteAheadLog} kept in a {@link MemoryWalVolume}, for tests of what sits above the WAL.
 * Same contract as {@link ObjectWal}, without batching: each record is stored by its own task on
 * the {@code persister} executor, in offset order, and acknowledged right after. A test controls
 * when records become durable through that executor (hold its tasks to stall the WAL, drop them to
 * simulate a crash). Offsets are dense: each record starts where the previous one ended.
 *
 * <p>Threading: the record queue and status are guarded by {@link #lock}; storing and completing
 * futures happen on the serialized persister, outside the lock, so futures complete in order.
 */
public final class MemoryWal implements WriteAheadLog {

  private enum Phase {
    NEW,
    STARTED,
    RECOVERED,
    OPEN
  }

  /** A record waiting for its turn on the persister. */
  private record Pending(
      long offset, byte[] body, long sizeBytes, CompletableFuture<Void> durable) {}

  private final MemoryWalVolume volume;
  private final long epoch;
  private final long maxUnflushedBytes;
  private final SerialExecutor persister;
  private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.NEW);
  private final AtomicLong unflushedBytes = new AtomicLong();
  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock.
  private final Deque<Pending> queue = new ArrayDeque<>();
  private WalStatus status = new WalStatus.NotOpen();
  private long nextOffset;

  // Written on the persister (and by start), read anywhere.
  private volatile long confirmOffset;

  /**
   * @param volume the storage; shared with the node's other epochs
   * @param epoch this instance's epoch
   * @param maxUnflushedBytes appends beyond this many unstored framed bytes are refused
   * @param persister runs the store-and-acknowledge tasks (serialized here)
   */
  public MemoryWal(MemoryWalVolume volume, long epoch, long maxUnflushedBytes, Executor persister) {
    this.volume = Objects.requireNonNull(volume, "volume");
    this.epoch = epoch;
    this.maxUnflushedBytes = maxUnflushedBytes;
    this.persister = new SerialExecutor(persister);
  }

  /** A WAL whose records are durable as soon as they are appended (1 GiB unflushed limit). */
  public MemoryWal(MemoryWalVolume volume, long epoch) {
    this(volume, epoch, 1L << 30, Runnable::run);
  }

  @Override
  public CompletableFuture<Void> start() {
    move(Phase.NEW, Phase.STARTED, "start()");
    try {
      long start = volume.claim(epoch);
      lock.lock();
      try {
        nextOffset = start;
      } finally {
        lock.unlock();
      }
      confirmOffset = start;
      return CompletableFuture.completedFuture(null);
    } catch (WalFencedException | IllegalStateException e) {
      stop(
          e instanceof WalFencedException
              ? new WalStatus.Fenced(epoch, e.getMessage())
              : new WalStatus.Closed("start failed: " + e.getMessage()));
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<Recovery> recover() {
    move(Phase.STARTED, Phase.RECOVERED, "recover()");
    return CompletableFuture.completedFuture(volume.read());
  }

  @Override
  public CompletableFuture<Void> reset() {
    if (!phase.compareAndSet(Phase.RECOVERED, Phase.OPEN)) {
      move(Phase.STARTED, Phase.OPEN, "reset()");
    }
    lock.lock();
    try {
      if (!(status instanceof WalStatus.NotOpen)) {
        return CompletableFuture.failedFuture(status.error());
      }
      try {
        volume.trim(epoch, nextOffset - 1);
      } catch (WalFencedException e) {
        status = new WalStatus.Fenced(epoch, e.getMessage());
        return CompletableFuture.failedFuture(e);
      }
      status = new WalStatus.Open();
    } finally {
      lock.unlock();
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public WalAppendResult append(ByteBuf body) {
    long size = OpenBatch.framedSize(body);
    if (size > maxUnflushedBytes) {
      throw new IllegalArgumentException(
          "a record of " + size + " framed bytes can never fit under " + maxUnflushedBytes);
    }
    if (TrimMarkerBody.is(body)) {
      throw new IllegalArgumentException("the body is a trim marker batch, which is reserved");
    }
    if (volume.epoch() > epoch) {
      fence("the volume belongs to the newer epoch " + volume.epoch());
    }
    WalAppendResult result;
    lock.lock();
    try {
      if (!(status instanceof WalStatus.Open)) {
        return status.refusal();
      }
      long unflushed = unflushedBytes.get();
      if (unflushed + size > maxUnflushedBytes) {
        return new WalAppendResult.OverCapacity(unflushed, maxUnflushedBytes);
      }
      CompletableFuture<Void> durable = new CompletableFuture<>();
      queue.addLast(new Pending(nextOffset, ByteBufUtil.getBytes(body), size, durable));
      unflushedBytes.addAndGet(size);
      result = new WalAppendResult.Accepted(nextOffset, durable);
      nextOffset += size;
    } finally {
      lock.unlock();
    }
    persister.execute(this::persistNext);
    return result;
  }

  @Override
  public long confirmOffset() {
    return confirmOffset;
  }

  @Override
  public CompletableFuture<Void> trim(long offset) {
    long confirmed = confirmOffset;
    if (offset >= confirmed) {
      throw new IllegalArgumentException(
          "trim(" + offset + ") would pass the confirm offset " + confirmed);
    }
    lock.lock();
    try {
      if (!(status instanceof WalStatus.Open)) {
        return CompletableFuture.failedFuture(status.error());
      }
    } finally {
      lock.unlock();
    }
    try {
      volume.trim(epoch, offset);
      return CompletableFuture.completedFuture(null);
    } catch (WalFencedException e) {
      fence(e.getMessage());
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public void fence(String reason) {
    stop(new WalStatus.Fenced(epoch, reason));
  }

  @Override
  public CompletableFuture<Void> shutdownGracefully() {
    lock.lock();
    try {
      if (status instanceof WalStatus.Open || status instanceof WalStatus.NotOpen) {
        status = new WalStatus.Closing();
      }
    } finally {
      lock.unlock();
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    // Runs after every persist task posted so far: the queue is empty unless the WAL stopped.
    persister.execute(
        () -> {
          WalStatus before = stop(new WalStatus.Closed("shut down"));
          if (before instanceof WalStatus.Fenced || before instanceof WalStatus.Failed) {
            done.completeExceptionally(before.error());
          } else {
            done.complete(null);
          }
        });
    return done;
  }

  @Override
  public void close() {
    stop(new WalStatus.Closed("closed"));
  }

  /** Moves to a terminal status (unless in one) and fails what is queued; returns the old one. */
  private WalStatus stop(WalStatus terminal) {
    WalStatus before;
    lock.lock();
    try {
      before = status;
      if (!status.terminal()) {
        status = terminal;
      }
    } finally {
      lock.unlock();
    }
    persister.execute(this::failQueued);
    return before;
  }

  private void persistNext() {
    Pending next;
    lock.lock();
    try {
      if (status.terminal()) {
        return; // a stop fails what is queued, after this task
      }
      next = queue.pollFirst();
    } finally {
      lock.unlock();
    }
    if (next == null) {
      return;
    }
    try {
      volume.store(epoch, next.offset(), next.body());
    } catch (WalFencedException e) {
      next.durable().completeExceptionally(e);
      fence(e.getMessage());
      return;
    }
    confirmOffset = next.offset() + next.sizeBytes();
    unflushedBytes.addAndGet(-next.sizeBytes());
    next.durable().complete(null);
  }

  private void failQueued() {
    List<Pending> failed;
    RuntimeException error;
    lock.lock();
    try {
      if (!status.terminal()) {
        return;
      }
      failed = new ArrayList<>(queue);
      queue.clear();
      error = status.error();
    } finally {
      lock.unlock();
    }
    failed.forEach(p -> p.durable().completeExceptionally(error));
  }

  private void move(Phase from, Phase to, String what) {
    if (!phase.compareAndSet(from, to)) {
      throw new IllegalStateException(
          what + " needs the WAL in phase " + from + ", it is in " + phase.get());
    }
  }
}
