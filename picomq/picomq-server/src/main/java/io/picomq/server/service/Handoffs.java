package io.picomq.server.service;

import io.picomq.s3stream.api.Stream;
import io.picomq.stream.StreamUnavailableException;
import io.picomq.stream.StreamUnavailableException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source's side of a transfer (the brief's section 5): stops taking appends for the stream,
 * waits until every append it took is durable and the entry holding their producer state is
 * written, closes the engine stream (which uploads what the WAL holds and closes the stream in the
 * log at its epoch) and lets the instance go. The caller then proposes the completion with that
 * epoch.
 *
 * <p>Appends that arrive meanwhile are refused with {@code 503 not_owner} and nothing written, so a
 * client's retry goes where the router now sends it: to the target. Long-polling readers are woken
 * and find the stream gone; their next read goes to the target too.
 *
 * <p>Threading: blocks (bounded, {@link ServiceFailures}); call it on a virtual thread.
 */
final class Handoffs {
  private static final Logger LOG = LoggerFactory.getLogger(Handoffs.class);

  private final LoadedStreams loaded;
  private final EngineStreams engineStreams;
  private final ServiceFailures failures;

  Handoffs(LoadedStreams loaded, EngineStreams engineStreams, ServiceFailures failures) {
    this.loaded = loaded;
    this.engineStreams = engineStreams;
    this.failures = failures;
  }

  /** What an append to a stream on its way to another node is answered. */
  static StreamUnavailableException moving(String name) {
    return new StreamUnavailableException(
        Reason.NOT_OWNER, false, name + " is moving to another node; retry there", null);
  }

  /**
   * Hands off engine stream {@code streamId}, which this process has open.
   *
   * @return the epoch the stream was closed at
   */
  long handOff(long streamId) {
    Optional<LiveStream> held = loaded.holding(streamId);
    if (held.isEmpty()) {
      // Open here with no instance: one was forgotten after a failed append, or it is read only
      // for a fork. The engine hands back the stream it has open (no proposal); once what it
      // took is settled, it closes like any other.
      Stream own = engineStreams.open(streamId);
      failures.await(own.settle().exceptionally(ignored -> null));
      failures.await(own.close());
      engineStreams.drop(own);
      return own.epoch();
    }
    LiveStream stream = held.get();
    CompletableFuture<Void> taken;
    stream.lock.lock();
    try {
      stream.handingOff = true;
      // Failed ones count as done: their instance was forgotten, and what they wrote is covered
      // by the stamps in their batches, which the target replays.
      taken =
          CompletableFuture.allOf(
              stream.lastAppend.exceptionally(ignored -> null),
              stream.persisted.exceptionally(ignored -> null));
    } finally {
      stream.lock.unlock();
    }
    long started = System.nanoTime();
    failures.await(taken);
    long settled = System.nanoTime();
    failures.await(stream.own.close());
    // The source's steps, for the transfer's own line ("handed stream N off ... in X ms").
    LOG.debug(
        "stream {}: appends durable in {} ms, closed (uploaded, closed in the log) in {} ms",
        streamId,
        (settled - started) / 1_000_000,
        (System.nanoTime() - settled) / 1_000_000);
    loaded.handedOff(stream);
    List<CompletableFuture<Void>> waiting = new ArrayList<>();
    stream.lock.lock();
    try {
      stream.waiters.forEach(waiter -> waiting.add(waiter.signal()));
      stream.waiters.clear();
    } finally {
      stream.lock.unlock();
    }
    waiting.forEach(signal -> signal.complete(null));
    return stream.own.epoch();
  }
}
