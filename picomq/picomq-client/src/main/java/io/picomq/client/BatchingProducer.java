package io.picomq.client;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link ProducerSession}: records go into the {@link BatchAccumulator}; sealed batches wait in
 * {@code toSend} for one of {@code maxInFlightRequests} slots; answers go through the {@link
 * AckSequencer} so records complete in order.
 *
 * <p>Design notes.
 *
 * <ul>
 *   <li>A batch is stamped (producer id, epoch, seq) and encoded once, when sealed; every resend
 *       sends those same bytes, so the server either appends it once or answers duplicate.
 *   <li>Appends in flight at once may reach the server out of order (separate HTTP/1.1 connections,
 *       or HTTP/2 streams handled concurrently). The server then answers {@code producer_seq_gap}
 *       for the later one; the session resends it as soon as its predecessor is answered, without
 *       counting that as a failure.
 *   <li>Transport failures and 5xx answers (a {@code 503} with its {@code Retry-After} among them)
 *       are resent after {@link RetryBackoff#pauseNanos}, the same bytes each time, until the
 *       batch's {@code deliveryTimeout}: a 503 from an append that the server still completed is
 *       then answered duplicate, so nothing is written twice.
 *   <li>A failure that a resend cannot fix (sealed or deleted stream, fenced epoch, a gap the
 *       session did not cause) breaks the session: that batch and every later one fail with it.
 *   <li>Bytes count against {@code maxInFlightBytes} from {@link #send} until the record's future
 *       completes; {@link #send} blocks for room (up to {@code maxBlock}). A record larger than the
 *       whole budget is let through when nothing else is in flight, so it cannot wait forever.
 * </ul>
 *
 * <p>Threading: every mutable field is guarded by {@code lock}. Futures are completed, and requests
 * sent, after releasing it. Each append is a blocking request on a {@code senders} thread (at most
 * {@code maxInFlightRequests} busy at once), whose answer is handled on that thread; linger timers
 * and backoff pauses run on the session's own scheduler thread.
 */
final class BatchingProducer implements ProducerSession {

  private final Dialect dialect;
  private final String stream;
  private final ProducerOptions options;
  private final ProducerId producerId;
  private final RetryBackoff backoff;
  private final ScheduledExecutorService scheduler;
  private final ExecutorService senders;
  private final RetryListener retryListener;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition room = lock.newCondition();
  private final Condition progress = lock.newCondition();

  // Guarded by lock.
  private final BatchAccumulator accumulator;
  private final AckSequencer<Outcome> sequencer = new AckSequencer<>();
  private final ArrayDeque<ProducerBatch> toSend = new ArrayDeque<>();
  private final Map<Long, ProducerBatch> unreleased = new HashMap<>();
  private final Set<Long> answered = new HashSet<>();
  private final Map<Long, List<ProducerBatch>> waitingForPredecessor = new HashMap<>();
  private int inFlight;
  private long bytesInUse;
  private boolean lingerExpired;
  private long lingerGeneration;
  private ScheduledFuture<?> lingerTask;
  private PicoException failure;
  private boolean closed;
  private final ArrayDeque<Completion> toComplete = new ArrayDeque<>();
  private boolean completing;
  private long completedThrough = -1;

  /**
   * @param maxBatchRecords the options' limit, or 1 where the protocol appends one record per
   *     request (Durable Streams, non-JSON streams)
   */
  BatchingProducer(
      Dialect dialect,
      String stream,
      ProducerOptions options,
      int maxBatchRecords,
      ScheduledExecutorService scheduler,
      ExecutorService senders,
      RetryListener retryListener) {
    this.dialect = dialect;
    this.stream = stream;
    this.options = options;
    this.producerId = options.producerId().map(ProducerId::of).orElseGet(ProducerId::random);
    this.backoff =
        new RetryBackoff(options.retryBackoffBase(), options.retryBackoffMax(), options.jitter());
    this.scheduler = scheduler;
    this.senders = senders;
    this.retryListener = retryListener;
    this.accumulator = new BatchAccumulator(maxBatchRecords, options.maxBatchBytes());
  }

  /** What became of a batch. */
  private sealed interface Outcome {
    record Appended(AppendResult result) implements Outcome {}

    record Failed(PicoException error) implements Outcome {}
  }

  @Override
  public ProducerId producerId() {
    return producerId;
  }

  @Override
  public long epoch() {
    return options.epoch();
  }

  @Override
  public CompletableFuture<AppendResult> send(Record record) {
    Objects.requireNonNull(record, "record");
    if (dialect.protocol() == Protocol.DURABLE_STREAMS && !record.headers().isEmpty()) {
      throw new UnsupportedByProtocolException(dialect.protocol(), "record headers");
    }
    long size = record.body().length;
    CompletableFuture<AppendResult> future = new CompletableFuture<>();
    lock.lock();
    try {
      checkUsable();
      awaitRoom(size);
      bytesInUse += size;
      boolean wasEmpty = !accumulator.hasOpenBatch();
      List<ProducerBatch> sealed = accumulator.add(record, future);
      sealed.forEach(this::enqueue);
      if (accumulator.hasOpenBatch() && (wasEmpty || !sealed.isEmpty())) {
        startLinger();
      }
    } finally {
      lock.unlock();
    }
    dispatch();
    return future;
  }

  private void awaitRoom(long size) {
    long waitNanos = options.maxBlock().toNanos();
    while (bytesInUse > 0 && bytesInUse + size > options.maxInFlightBytes()) {
      if (waitNanos <= 0) {
        throw new ProducerBufferFullException(
            "no room for a record of "
                + size
                + " bytes within "
                + options.maxBlock()
                + ": "
                + bytesInUse
                + " bytes in flight, maxInFlightBytes "
                + options.maxInFlightBytes());
      }
      try {
        waitNanos = room.awaitNanos(waitNanos);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ProducerBufferFullException("interrupted while waiting for room");
      }
      checkUsable();
    }
  }

  private void checkUsable() {
    if (failure != null) {
      throw new IllegalStateException(
          "the producer session failed: " + failure.getMessage(), failure);
    }
    if (closed) {
      throw new IllegalStateException("the producer session is closed");
    }
  }

  /** Registers a sealed batch, to be sent when a slot is free. Under lock. */
  private void enqueue(ProducerBatch batch) {
    sequencer.register(batch.producerSeq);
    unreleased.put(batch.producerSeq, batch);
    toSend.addLast(batch);
  }

  /** Under lock. */
  private void startLinger() {
    long generation = ++lingerGeneration;
    lingerExpired = false;
    if (lingerTask != null) {
      lingerTask.cancel(false);
    }
    if (options.linger().isZero()) {
      lingerExpired = true;
      return;
    }
    lingerTask =
        scheduler.schedule(
            () -> onLinger(generation), options.linger().toNanos(), TimeUnit.NANOSECONDS);
  }

  private void onLinger(long generation) {
    lock.lock();
    try {
      if (generation != lingerGeneration) {
        return;
      }
      lingerExpired = true;
    } finally {
      lock.unlock();
    }
    dispatch();
  }

  /**
   * Starts as many waiting batches as there are free slots. The open batch is sealed only when a
   * slot is free and its linger time has passed (or a flush asked), so while every slot is busy
   * records keep gathering into bigger batches.
   */
  private void dispatch() {
    List<ProducerBatch> start = new ArrayList<>();
    lock.lock();
    try {
      while (inFlight < options.maxInFlightRequests() && failure == null) {
        if (toSend.isEmpty()) {
          if (!lingerExpired || !accumulator.hasOpenBatch()) {
            break;
          }
          accumulator.seal().ifPresent(this::enqueue);
          lingerExpired = false;
        }
        ProducerBatch batch = toSend.pollFirst();
        inFlight++;
        batch.deadlineNanos = System.nanoTime() + options.deliveryTimeout().toNanos();
        start.add(batch);
      }
    } finally {
      lock.unlock();
    }
    start.forEach(this::transmit);
  }

  /** Sends a batch on a sender thread (a blocking request; see {@link HttpTransport}). */
  private void transmit(ProducerBatch batch) {
    try {
      senders.execute(() -> sendNow(batch));
    } catch (RejectedExecutionException e) {
      onAnswer(batch, null, new PicoTransportException("the producer session was shut down", e));
    }
  }

  private void sendNow(ProducerBatch batch) {
    AppendResult result;
    try {
      if (batch.prepared == null) {
        AppendOptions stamp =
            AppendOptions.defaults().producer(producerId, options.epoch(), batch.producerSeq);
        batch.prepared = dialect.prepare(stream, batch.records, stamp).getFirst();
      }
      result = dialect.send(batch.prepared);
    } catch (RuntimeException e) {
      onAnswer(batch, null, e);
      return;
    }
    onAnswer(batch, result, null);
  }

  private void onAnswer(ProducerBatch batch, AppendResult result, Throwable failed) {
    if (failed == null) {
      finish(batch, new Outcome.Appended(result), true);
      List<ProducerBatch> next;
      lock.lock();
      try {
        next = waitingForPredecessor.remove(batch.producerSeq);
      } finally {
        lock.unlock();
      }
      if (next != null) {
        next.forEach(this::transmit);
      }
      return;
    }
    PicoException error = HttpTransport.toPicoException(failed);
    long delayNanos;
    lock.lock();
    try {
      if (failure != null) {
        delayNanos = -1;
      } else if (isGapBehindOwnBatch(error, batch)) {
        long predecessor = batch.producerSeq - 1;
        if (!answered.contains(predecessor) && !sequencer.releasedThrough(predecessor)) {
          waitingForPredecessor.computeIfAbsent(predecessor, k -> new ArrayList<>()).add(batch);
          return;
        }
        // The predecessor was accepted after this batch reached the server: go again at once. A
        // gap that persists (the server lost producer state) backs off and ends at the deadline.
        delayNanos =
            batch.gapResends++ == 0
                ? 0
                : backoff.delayNanos(batch.attempts++, ThreadLocalRandom.current());
        if (System.nanoTime() + delayNanos - batch.deadlineNanos > 0) {
          delayNanos = -1;
        }
      } else if (error.isRetriable()) {
        // A 503's Retry-After is a floor; a pause that would end past the deadline gives up now.
        delayNanos = backoff.pauseNanos(batch.attempts++, ThreadLocalRandom.current(), error);
        if (System.nanoTime() + delayNanos - batch.deadlineNanos > 0) {
          delayNanos = -1;
        }
      } else {
        delayNanos = -1;
      }
      if (delayNanos < 0 && failure == null) {
        // Broken before any future fails, so that whoever sees the failure cannot send more.
        failure = error;
      }
    } finally {
      lock.unlock();
    }
    if (delayNanos < 0) {
      finish(batch, new Outcome.Failed(error), true);
      breakSession(error);
      return;
    }
    if (!(error instanceof ProducerConflictException)) {
      RetryListener.notify(retryListener, error, delayNanos);
    }
    if (delayNanos == 0) {
      transmit(batch);
    } else {
      scheduler.schedule(() -> transmit(batch), delayNanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * A gap whose missing seqs are this session's own earlier batches: every seq below this one was
   * sent by this session, so they are under way (or were accepted after this batch got there).
   */
  private static boolean isGapBehindOwnBatch(PicoException error, ProducerBatch batch) {
    return error instanceof ProducerConflictException gap
        && gap.expectedSeq() >= 0
        && gap.expectedSeq() < batch.producerSeq;
  }

  /** Records a batch's outcome and completes the futures it releases, in order. */
  private void finish(ProducerBatch batch, Outcome outcome, boolean wasInFlight) {
    lock.lock();
    try {
      if (wasInFlight) {
        inFlight--;
      }
      if (outcome instanceof Outcome.Appended) {
        answered.add(batch.producerSeq);
      }
      for (AckSequencer.Released<Outcome> r : sequencer.complete(batch.producerSeq, outcome)) {
        answered.remove(r.producerSeq());
        toComplete.addLast(new Completion(unreleased.remove(r.producerSeq()), r.outcome()));
      }
    } finally {
      lock.unlock();
    }
    completeInOrder();
    dispatch();
  }

  /** A released batch whose futures are still to be completed. */
  private record Completion(ProducerBatch batch, Outcome outcome) {}

  /**
   * Completes released batches' futures one batch at a time, in release order, outside the lock.
   * Answers are handled on several sender threads at once; only one of them completes futures at a
   * time (the others leave their batches in {@code toComplete} for it), so a later record's future
   * never completes before an earlier one's.
   */
  private void completeInOrder() {
    while (true) {
      Completion next;
      lock.lock();
      try {
        if (completing || toComplete.isEmpty()) {
          return;
        }
        completing = true;
        next = toComplete.pollFirst();
      } finally {
        lock.unlock();
      }
      ProducerBatch done = next.batch();
      for (int i = 0; i < done.futures.size(); i++) {
        switch (next.outcome()) {
          case Outcome.Appended appended ->
              done.futures.get(i).complete(ProducerBatch.recordResult(appended.result(), i));
          case Outcome.Failed failed -> done.futures.get(i).completeExceptionally(failed.error());
        }
      }
      lock.lock();
      try {
        completing = false;
        bytesInUse -= done.bytes;
        completedThrough = done.producerSeq;
        room.signalAll();
        progress.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** Fails everything not yet sent, and makes later sends throw. */
  private void breakSession(PicoException error) {
    List<ProducerBatch> queued = new ArrayList<>();
    List<ProducerBatch> waiting = new ArrayList<>();
    lock.lock();
    try {
      if (failure == null) {
        failure = error;
      }
      accumulator
          .seal()
          .ifPresent(
              open -> {
                sequencer.register(open.producerSeq);
                unreleased.put(open.producerSeq, open);
                queued.add(open);
              });
      queued.addAll(0, toSend);
      toSend.clear();
      waitingForPredecessor.values().forEach(waiting::addAll);
      waitingForPredecessor.clear();
      room.signalAll();
    } finally {
      lock.unlock();
    }
    queued.forEach(batch -> finish(batch, new Outcome.Failed(error), false));
    waiting.forEach(batch -> finish(batch, new Outcome.Failed(error), true));
  }

  @Override
  public void flush() {
    long last;
    lock.lock();
    try {
      accumulator.seal().ifPresent(this::enqueue);
      last = accumulator.nextProducerSeq() - 1;
    } finally {
      lock.unlock();
    }
    dispatch();
    lock.lock();
    try {
      while (completedThrough < last) {
        progress.awaitUninterruptibly();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
    } finally {
      lock.unlock();
    }
    flush();
    lock.lock();
    try {
      closed = true;
      if (lingerTask != null) {
        lingerTask.cancel(false);
      }
    } finally {
      lock.unlock();
    }
    scheduler.shutdown();
    senders.shutdown();
  }
}
