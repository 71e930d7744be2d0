package io.picomq.server.service;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.server.service.Registration.ProducerState;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.ProducerTag;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The append path of a loaded stream: admits an append ({@link Admission}), hands it to the engine,
 * confirms it, and forgets the stream when the engine fails or refuses it.
 *
 * <h2>Design</h2>
 *
 * An append is validated and handed to the engine under the stream's lock; the durability wait is
 * outside it, so pipelined appends share a WAL flush. An append that changes the entry (a producer,
 * a writer seq, a close) stores that change as a {@link BatchStamp} in its own batch, and is
 * acknowledged after both its records are durable and the entry holding its effect applied ({@link
 * EntryWriter}). Waiters wake when the engine confirms the append that passes them, before the
 * append's caller hears of it.
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>Seqs are assigned in the order appends are handed to the engine, which assigns offsets in
 *       the same order: the next append's seq is exactly where its record lands, as long as every
 *       earlier one lands.
 *   <li>When one does not (failed or refused), the instance's tail and producer state may be ahead
 *       of what is durable: the instance is forgotten and nothing more is appended through it. The
 *       next touch loads the name afresh once the engine stream settled ({@link
 *       io.picomq.s3stream.api.Stream#settle}: the appends it took before the failure are durable
 *       or failed, none after it is taken), so it starts from the durable tail.
 *   <li>The producer state in the instance runs ahead of durability, so a retry can find its seq
 *       there while the original is still in flight: its duplicate answer waits until every append
 *       handed over before it is durable, and fails if one of them does.
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * {@link #append} runs on the caller's thread when the stream is loaded and nothing on that path
 * blocks, so one caller's pipelined appends keep their order; an unloaded stream is looked up on
 * {@code executor}. Engine callbacks ({@link #confirm}, {@link #forget}) take the stream's lock
 * only for bookkeeping and complete futures after releasing it.
 */
final class Appender {
  private static final Logger LOG = LoggerFactory.getLogger(Appender.class);

  private final LoadedStreams loaded;
  private final Function<String, Optional<LiveStream>> lookup;
  private final EntryWriter writer;
  private final ServiceFailures failures;
  private final InstantSource clock;
  private final Executor executor;
  private final ByteBufAllocator allocator;

  /**
   * @param lookup a name's instance with expiry applied, loading it if needed (blocks)
   */
  Appender(
      LoadedStreams loaded,
      Function<String, Optional<LiveStream>> lookup,
      EntryWriter writer,
      ServiceFailures failures,
      InstantSource clock,
      Executor executor,
      ByteBufAllocator allocator) {
    this.loaded = loaded;
    this.lookup = lookup;
    this.writer = writer;
    this.failures = failures;
    this.clock = clock;
    this.executor = executor;
    this.allocator = allocator;
  }

  /** Appends to {@code name}: answered once durable and, if it changes the entry, applied. */
  CompletableFuture<AppendVerdict> append(String name, AppendRequest request) {
    // A loaded stream takes the append on the caller's thread, so one caller's pipelined appends
    // (an idempotent producer's seqs 0, 1, 2 sent without waiting) keep their order. Nothing on
    // this path blocks: the engine copies the payload and assigns offsets at once.
    Optional<LiveStream> published = loaded.published(name);
    if (published.isPresent() && !Expirations.expiredNow(published.get(), clock.millis())) {
      try {
        return appendTo(published.get(), request);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return afterLookup(name, request);
  }

  private CompletableFuture<AppendVerdict> afterLookup(String name, AppendRequest request) {
    return CompletableFuture.supplyAsync(
            () ->
                lookup
                    .apply(name)
                    .map(stream -> appendTo(stream, request))
                    .orElseGet(
                        () -> CompletableFuture.completedFuture(new AppendVerdict.NotFound())),
            executor)
        .thenCompose(future -> future);
  }

  private CompletableFuture<AppendVerdict> appendTo(LiveStream stream, AppendRequest request) {
    stream.lock.lock();
    try {
      Registration registration = stream.registration;
      if (stream.forgotten) {
        // An earlier append failed after this caller found the stream: load it afresh.
        return afterLookup(stream.name, request);
      }
      if (stream.removed) {
        return CompletableFuture.completedFuture(new AppendVerdict.NotFound());
      }
      if (stream.handingOff) {
        return CompletableFuture.failedFuture(Handoffs.moving(stream.name));
      }
      if (registration.softDeleted()) {
        return CompletableFuture.completedFuture(new AppendVerdict.Gone());
      }
      stream.touch(clock.millis());
      Optional<AppendVerdict> refused = Admission.judge(registration, stream.assignedTail, request);
      if (refused.isPresent() && refused.get() instanceof AppendVerdict.Duplicate duplicate) {
        // The seq it repeats may still be on its way (a retry that overtook its original): the
        // answer waits until everything handed to the engine is durable, so no duplicate is
        // acknowledged that a failure could still take away. A failed entry write does not fail
        // it: the batches carry their stamps.
        return CompletableFuture.allOf(
                stream.lastAppend, stream.persisted.exceptionally(ignored -> null))
            .thenApply(ignored -> duplicate);
      }
      if (refused.isPresent()) {
        return CompletableFuture.completedFuture(refused.get());
      }
      Registration next = effectOf(stream, registration, request);
      if (request.records().isEmpty()) {
        return closeOnly(stream, next);
      }
      BatchStamp stamp = new BatchStamp(request.producer(), request.writerSeq(), request.close());
      return handToEngine(stream, request, next, stamp);
    } finally {
      stream.lock.unlock();
    }
  }

  /** The entry once the append took effect: its producer seq, writer seq, seal and activity. */
  private static Registration effectOf(
      LiveStream stream, Registration registration, AppendRequest request) {
    Map<String, ProducerState> producers = registration.producers();
    if (request.producer().isPresent()) {
      ProducerTag stamp = request.producer().get();
      producers = new HashMap<>(producers);
      producers.put(stamp.id(), new ProducerState(stamp.epoch(), stamp.seq()));
    }
    return registration
        .withWriter(request.writerSeq().or(registration::writerSeq), producers)
        .withClosed(registration.closed() || request.close())
        .withActivity(stream.activityMillis);
  }

  /** Under the stream's lock: seal without records, once everything before is durable. */
  private CompletableFuture<AppendVerdict> closeOnly(LiveStream stream, Registration next) {
    long tail = stream.assignedTail;
    long timestamp = stream.lastTimestampMillis;
    boolean wasClosed = stream.registration.closed();
    CompletableFuture<Void> persisted =
        wasClosed ? stream.persisted : writer.persist(stream, next, stream.lastAppend);
    return persisted.thenApply(
        ignored -> {
          wakeDue(stream);
          return new AppendVerdict.Accepted(tail, tail, timestamp, true);
        });
  }

  /**
   * Under the stream's lock: assigns seqs and hands the records to the engine, with the stamp of
   * what the append changes in the entry stored in the same batch (see {@link
   * EntryWriter#replayStamps}).
   */
  private CompletableFuture<AppendVerdict> handToEngine(
      LiveStream stream, AppendRequest request, Registration next, BatchStamp stamp) {
    int count = request.records().size();
    long timestamp = Math.max(clock.millis(), stream.lastTimestampMillis);
    long startSeq = stream.assignedTail;
    long nextSeq = startSeq + count;
    ByteBuf payload = RecordBatchPayload.encode(request.records(), timestamp, stamp, allocator);
    int payloadBytes = payload.readableBytes();
    CompletableFuture<AppendOutcome> appended;
    try {
      appended = stream.own.append(count, payload);
    } catch (RuntimeException e) {
      payload.release();
      throw e;
    }
    stream.assignedTail = nextSeq;
    stream.lastTimestampMillis = timestamp;
    CompletableFuture<Void> durable =
        appended.handle(
            (outcome, failure) -> {
              payload.release();
              if (failure == null && outcome instanceof AppendOutcome.Appended) {
                confirm(stream, nextSeq);
                return null;
              }
              RuntimeException cause =
                  failure != null ? failures.translate(failure, true) : failures.refused(outcome);
              forget(stream, cause);
              throw cause;
            });
    stream.lastAppend = durable;
    stream.unstampedBytes += payloadBytes;
    CompletableFuture<Void> acknowledged;
    if (!stamp.isEmpty()) {
      // Acknowledged once the entry holds the effect too, so readers of the entry (HEAD, other
      // nodes' views, a transfer) agree with the answer; a crash before that is covered by the
      // stamp in the batch.
      acknowledged = writer.persist(stream, next, durable);
    } else {
      stream.registration = next;
      acknowledged = durable;
      if (EntryWriter.checkpointDue(stream, nextSeq)) {
        // Bounds what loading this stream replays; the answer does not wait for it.
        writer.persist(stream, next, durable);
      }
    }
    boolean closed = next.closed();
    return acknowledged.thenApply(
        ignored -> new AppendVerdict.Accepted(startSeq, nextSeq, timestamp, closed));
  }

  /** The engine confirmed seqs below {@code nextSeq}: wake whoever waits for them. */
  private static void confirm(LiveStream stream, long nextSeq) {
    List<CompletableFuture<Void>> due;
    stream.lock.lock();
    try {
      stream.confirmedTail = Math.max(stream.confirmedTail, nextSeq);
      due = stream.dueWaiters();
    } finally {
      stream.lock.unlock();
    }
    due.forEach(signal -> signal.complete(null));
  }

  /**
   * An append failed in the engine (fenced, over capacity, broken I/O): drops the instance (see the
   * invariants above); the next request reloads the name once its engine stream settled.
   */
  private void forget(LiveStream stream, Throwable cause) {
    List<CompletableFuture<Void>> waiting = new ArrayList<>();
    stream.lock.lock();
    try {
      if (stream.forgotten) {
        return;
      }
      stream.forgotten = true;
      // Waiters re-check through a read, which reloads the stream.
      stream.waiters.forEach(waiter -> waiting.add(waiter.signal()));
      stream.waiters.clear();
    } finally {
      stream.lock.unlock();
    }
    LOG.warn("append to {} failed; reloading the stream: {}", stream.name, cause.toString());
    loaded.forgotten(stream, stream.own.settle().exceptionally(ignored -> null));
    waiting.forEach(signal -> signal.complete(null));
  }

  private static void wakeDue(LiveStream stream) {
    List<CompletableFuture<Void>> due;
    stream.lock.lock();
    try {
      due = stream.dueWaiters();
    } finally {
      stream.lock.unlock();
    }
    due.forEach(signal -> signal.complete(null));
  }
}
