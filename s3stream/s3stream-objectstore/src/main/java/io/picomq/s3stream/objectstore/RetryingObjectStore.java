package io.picomq.s3stream.objectstore;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.time.Backoff;
import io.picomq.s3stream.time.Scheduler;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repeats operations of another {@link ObjectStore} that fail with a retryable {@link
 * ObjectStoreException}, with exponential backoff and jitter as a {@link RetryPolicy} says.
 *
 * <p>Which failures are retryable is the wrapped backend's call ({@link
 * ObjectStoreException#isRetryable()}); this class only adds one more: an attempt that has not
 * answered within {@link RetryPolicy#attemptTimeout()}. Every operation of the contract is safe to
 * repeat: a put of the same bytes, a read, a list, and a delete of keys that may already be gone
 * all end in the same state however often they run.
 *
 * <p>Outcomes: success as soon as one attempt succeeds; a non-retryable failure at once, unchanged
 * (so {@link ObjectNotFoundException} reaches the caller as itself); when attempts or time run out,
 * an exception of the last failure's kind naming the attempt count, caused by the last failure.
 *
 * <p>Threading: attempts start on the caller's thread (the first) or the scheduler's (the rest);
 * each attempt's outcome is settled once, by whichever comes first of its answer and its timeout,
 * through an {@link AtomicBoolean}. A buffer from a {@link #get} answer that lost that race, or
 * that arrives after the caller cancelled, is released here.
 */
public final class RetryingObjectStore implements ObjectStore {

  private static final Logger LOG = LoggerFactory.getLogger(RetryingObjectStore.class);

  private final ObjectStore delegate;
  private final RetryPolicy policy;
  private final Backoff backoff;
  private final Scheduler scheduler;
  private final RandomGenerator random;
  private volatile boolean closed;

  /**
   * @param delegate the store to call; closed with this one
   * @param policy how often and how long to retry
   * @param scheduler the clock and timer for backoffs and attempt timeouts
   * @param random draws the jitter
   */
  public RetryingObjectStore(
      ObjectStore delegate, RetryPolicy policy, Scheduler scheduler, RandomGenerator random) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.backoff = policy.backoff();
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.random = Objects.requireNonNull(random, "random");
  }

  /** {@inheritDoc} Ownership of {@code data} is as for the wrapped store: the caller keeps it. */
  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    return new Operation<>("PUT '" + key + "'", () -> attemptPut(key, data)).start();
  }

  /**
   * One attempt of a put, on its own reference to the bytes, released when this attempt answers: an
   * attempt given up on (timed out) may still be sending after the put failed or another attempt
   * succeeded, and the caller releases {@code data} as soon as the put completes.
   */
  private CompletableFuture<Void> attemptPut(String key, ByteBuf data) {
    ByteBuf own = data.retainedDuplicate();
    CompletableFuture<Void> answer;
    try {
      answer = delegate.put(key, own);
    } catch (RuntimeException e) {
      own.release();
      throw e;
    }
    return answer.whenComplete((ignored, error) -> own.release());
  }

  /** {@inheritDoc} The caller releases the buffer of the attempt that succeeded. */
  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    Objects.requireNonNull(key, "key");
    return new Operation<>(
            "GET '" + key + "' [" + start + ", " + end + ")", () -> delegate.get(key, start, end))
        .start();
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return new Operation<>("LIST '" + prefix + "'", () -> delegate.list(prefix)).start();
  }

  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    List<String> copy = List.copyOf(keys);
    return new Operation<>("DELETE " + copy.size() + " keys", () -> delegate.delete(copy)).start();
  }

  @Override
  public void close() {
    closed = true;
    delegate.close();
  }

  @Override
  public String toString() {
    return "Retrying[" + delegate + "]";
  }

  /** One call of the contract and its attempts. */
  private final class Operation<T> {
    private final String what;
    private final Supplier<CompletableFuture<T>> attempt;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private final long startNanos = scheduler.nanoTime();

    /** Written by the thread running attempt n, read by the one running attempt n + 1. */
    private volatile int attempts;

    Operation(String what, Supplier<CompletableFuture<T>> attempt) {
      this.what = what;
      this.attempt = attempt;
    }

    CompletableFuture<T> start() {
      runAttempt();
      return result;
    }

    private void runAttempt() {
      if (result.isDone()) {
        return; // cancelled by the caller while we waited
      }
      if (closed) {
        result.completeExceptionally(
            new ObjectStoreException(
                ObjectStoreException.Kind.CLOSED, what + " stopped: the store is closed"));
        return;
      }
      int number = ++attempts;
      AtomicBoolean settled = new AtomicBoolean();
      CompletableFuture<T> answer;
      try {
        answer = attempt.get();
      } catch (RuntimeException e) {
        answer = CompletableFuture.failedFuture(e);
      }
      Scheduler.Cancellable timeout =
          scheduler.schedule(
              () -> {
                if (settled.compareAndSet(false, true)) {
                  onFailure(number, timedOut(number));
                }
              },
              policy.attemptTimeout().toNanos());
      answer.whenComplete(
          (value, error) -> {
            timeout.cancel();
            if (!settled.compareAndSet(false, true)) {
              ReferenceCountUtil.release(value); // too late: its attempt already timed out
            } else if (error != null) {
              onFailure(number, Causes.unwrap(error));
            } else if (!result.complete(value)) {
              ReferenceCountUtil.release(value); // the caller cancelled
            }
          });
    }

    private void onFailure(int number, Throwable error) {
      if (!(error instanceof ObjectStoreException failure) || !failure.isRetryable()) {
        result.completeExceptionally(error);
        return;
      }
      long elapsedNanos = scheduler.nanoTime() - startNanos;
      long backoffNanos = backoff.delayNanos(number, random);
      if (number >= policy.maxAttempts()
          || elapsedNanos + backoffNanos > policy.maxElapsed().toNanos()) {
        result.completeExceptionally(exhausted(number, elapsedNanos, failure));
        return;
      }
      LOG.debug(
          "{}: attempt {} failed, retrying in {} ms: {}",
          what,
          number,
          TimeUnit.NANOSECONDS.toMillis(backoffNanos),
          failure.getMessage());
      scheduler.schedule(this::runAttempt, backoffNanos);
    }

    private ObjectStoreException timedOut(int number) {
      return new ObjectStoreException(
          ObjectStoreException.Kind.TRANSIENT,
          what
              + ": attempt "
              + number
              + " got no answer within "
              + policy.attemptTimeout().toMillis()
              + " ms");
    }

    private ObjectStoreException exhausted(
        int number, long elapsedNanos, ObjectStoreException last) {
      LOG.warn("{}: giving up after {} attempts: {}", what, number, last.getMessage());
      return new ObjectStoreException(
          last.kind(),
          what
              + " failed after "
              + number
              + " attempts in "
              + TimeUnit.NANOSECONDS.toMillis(elapsedNanos)
              + " ms; last: "
              + last.getMessage(),
          last);
    }
  }
}
