package io.picomq.server.service;

import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.StorageHealth;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.metadata.MetadataUnavailableException;
import io.picomq.sql.log.LogClosedException;
import io.picomq.sql.log.LogOverloadedException;
import io.picomq.sql.log.LogStoppedException;
import io.picomq.sql.log.MetadataLogException;
import io.picomq.sql.log.ProposalOutcomeUnknownException;
import io.picomq.stream.StreamUnavailableException;
import io.picomq.stream.StreamUnavailableException.Reason;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Bounds the stream service's waits and types its failures: what turns an engine refusal, a failing
 * object store or metadata database, or a wait past the request timeout into a {@link
 * StreamUnavailableException} with its {@link Reason}, so the frontends answer 503 (507 for a full
 * disk) and only a bug answers 500.
 *
 * <p>Two bounds, both the request timeout: every blocking wait inside the service ({@link #await})
 * gives up after it, so a stalled store or database never holds a thread or a lock for longer; and
 * every future the service returns ({@link #bound}) fails after it, so an answer never waits
 * longer, whatever the work still does.
 *
 * <p>Naming the cause: the engine and the metadata log retry transient failures themselves, so a
 * failing store shows as a call that does not end rather than as an error. A timeout, or an engine
 * failure of no known type, is therefore attributed by asking the engine's {@link StorageHealth}
 * and the plane's {@link MetadataPlane#trouble()}; an engine failure while both are healthy is a
 * bug and keeps its type.
 *
 * <p>Threading: stateless past construction; any thread.
 */
final class ServiceFailures {
  private final MetadataPlane plane;
  private final StreamEngine engine;
  private final Duration timeout;

  ServiceFailures(MetadataPlane plane, StreamEngine engine, Duration timeout) {
    if (!timeout.isPositive()) {
      throw new IllegalArgumentException("the request timeout must be positive: " + timeout);
    }
    this.plane = plane;
    this.engine = engine;
    this.timeout = timeout;
  }

  /**
   * Waits for {@code future} for at most the request timeout. Rethrows its failure typed (see
   * {@link #translate}); a wait past the timeout throws a {@link StreamUnavailableException} that
   * says the work may still complete.
   */
  <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      // What arrives after we gave up is nobody's: release it (a fetch result holds buffers).
      future.thenAccept(ServiceFailures::closeLate);
      throw timedOut(true);
    } catch (ExecutionException e) {
      throw translate(e.getCause(), true);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted while waiting");
    }
  }

  /**
   * {@code work}, failing typed (see {@link #translate}) and at the latest after the request
   * timeout.
   *
   * @param writes whether the call changes state: then a late or unknown end may still complete
   */
  <T> CompletableFuture<T> bound(CompletableFuture<T> work, boolean writes) {
    CompletableFuture<T> answer = new CompletableFuture<>();
    work.whenComplete(
        (value, failure) -> {
          if (failure == null) {
            answer.complete(value);
          } else {
            answer.completeExceptionally(translate(failure, writes));
          }
        });
    if (answer.isDone()) {
      return answer;
    }
    // Not orTimeout: on JDK 25 its delay thread wakes to arm and again to cancel every timer, a
    // cost per request; the system scheduler's wheel takes both without waking anyone.
    return Scheduler.system().failAfter(answer, timeout.toNanos(), () -> timedOut(writes));
  }

  /** Why the engine refused an append, other than {@link AppendOutcome.Appended}. */
  StreamUnavailableException refused(AppendOutcome outcome) {
    return switch (outcome) {
      case AppendOutcome.OverCapacity full ->
          new StreamUnavailableException(
              Reason.OVER_CAPACITY,
              false,
              "the node's write buffer is full ("
                  + full.unconfirmedBytes()
                  + " of "
                  + full.limitBytes()
                  + " bytes wait for object storage); nothing was written",
              null);
      case AppendOutcome.Fenced fenced ->
          new StreamUnavailableException(
              Reason.NOT_OWNER,
              false,
              "this node no longer owns the stream (fenced at epoch " + fenced.epoch() + ")",
              null);
      case AppendOutcome.Closed closed ->
          new StreamUnavailableException(
              Reason.NOT_OWNER, false, "the stream is being closed on this node", null);
      case AppendOutcome.Appended appended ->
          throw new IllegalArgumentException("an append that succeeded was not refused");
    };
  }

  /**
   * {@code failure} typed: a {@link StreamUnavailableException} when it is a known passing
   * condition, else (a bug) the failure itself, unwrapped.
   *
   * @param writes whether the failed call changes state
   */
  RuntimeException translate(Throwable failure, boolean writes) {
    Throwable cause = Causes.unwrap(failure);
    StreamUnavailableException typed = typed(cause);
    if (typed != null) {
      return writes ? typed : typed.forRead();
    }
    return cause instanceof RuntimeException runtime ? runtime : new CompletionException(cause);
  }

  private StreamUnavailableException typed(Throwable cause) {
    return switch (cause) {
      case StreamUnavailableException known -> known;
      case TimeoutException late -> timedOut(true);
      case MetadataLogException log -> metadata(log);
      case MetadataUnavailableException metadata ->
          new StreamUnavailableException(
              Reason.METADATA_UNAVAILABLE, true, metadata.getMessage(), metadata);
      case MetadataRejectedException rejected when ownership(rejected) ->
          new StreamUnavailableException(
              Reason.NOT_OWNER,
              false,
              "this node cannot open the stream: " + rejected.getMessage(),
              rejected);
      default -> health(cause).orElse(null);
    };
  }

  private static boolean ownership(MetadataRejectedException rejected) {
    return switch (rejected.reason()) {
      case FENCED, NODE_FENCED, OPEN_ON_OTHER_NODE, STREAM_CLOSED -> true;
      case UNKNOWN_STREAM, OFFSET_MISMATCH, UNKNOWN_OBJECT -> false;
    };
  }

  private static StreamUnavailableException metadata(MetadataLogException log) {
    // A closed log (shutting down) or an unknown outcome may have committed the proposal; an
    // overloaded or stopped log refused it before writing anything.
    boolean mayHaveCompleted =
        switch (log) {
          case LogClosedException closed -> true;
          case ProposalOutcomeUnknownException unknown -> true;
          case LogOverloadedException overloaded -> false;
          case LogStoppedException stopped -> false;
        };
    return new StreamUnavailableException(
        Reason.METADATA_UNAVAILABLE, mayHaveCompleted, log.getMessage(), log);
  }

  /** A wait past the request timeout, attributed to what is failing, if anything is. */
  private StreamUnavailableException timedOut(boolean mayHaveCompleted) {
    String late = "no answer within the request timeout (" + timeout.toMillis() + " ms)";
    StorageHealth storage = engine.storageHealth();
    if (storage instanceof StorageHealth.Failing failing) {
      return new StreamUnavailableException(
          failing.noSpace() ? Reason.DISK_FULL : Reason.STORAGE_UNAVAILABLE,
          mayHaveCompleted,
          late + ": " + failing.detail(),
          null);
    }
    Optional<String> metadata = plane.trouble();
    if (metadata.isPresent()) {
      return new StreamUnavailableException(
          Reason.METADATA_UNAVAILABLE, mayHaveCompleted, late + ": " + metadata.get(), null);
    }
    return new StreamUnavailableException(Reason.TIMED_OUT, mayHaveCompleted, late, null);
  }

  /** An engine failure of no known type: storage's or the database's, if either is failing. */
  private Optional<StreamUnavailableException> health(Throwable cause) {
    if (engine.storageHealth() instanceof StorageHealth.Failing failing) {
      return Optional.of(
          new StreamUnavailableException(
              failing.noSpace() ? Reason.DISK_FULL : Reason.STORAGE_UNAVAILABLE,
              true,
              failing.detail(),
              cause));
    }
    return plane
        .trouble()
        .map(why -> new StreamUnavailableException(Reason.METADATA_UNAVAILABLE, true, why, cause));
  }

  private static void closeLate(Object late) {
    if (late instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        // released as far as it goes; nothing waits for it
      }
    }
  }
}
