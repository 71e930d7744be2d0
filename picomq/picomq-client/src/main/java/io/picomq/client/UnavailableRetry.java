package io.picomq.client;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Retries a one-shot call that was answered {@code 503}/{@code 507} ({@link
 * ServiceUnavailableException}), within a time budget, on the caller's thread. Nothing else is
 * retried here: other errors are answers (a 404 stays a 404), and transport failures are left to
 * the caller, who knows whether the server is expected at all.
 *
 * <p>Each attempt sends the original request to the original URI and follows redirects afresh (up
 * to {@link HttpTransport#MAX_REDIRECTS} hops per attempt): after a 503 from a stream's owner, the
 * entry node may route the retry to another owner, as it does while a failed node's streams move.
 *
 * <p>The pause before each retry is {@link RetryBackoff#pauseNanos}: exponential, never shorter
 * than the server's {@code Retry-After}. When the next pause would end past the budget, the call
 * gives up at once with the last {@link ServiceUnavailableException} instead of waiting only to
 * fail.
 */
final class UnavailableRetry {

  /** The pauses of one-shot calls: 100 ms doubling to 5 s, unless Retry-After says longer. */
  static final RetryBackoff BACKOFF =
      new RetryBackoff(Duration.ofMillis(100), Duration.ofSeconds(5), 0.2);

  /** Longer budgets count as this long (about 146 years fit in a long of nanos). */
  private static final Duration LONGEST = Duration.ofDays(365L * 100);

  private final RetryListener listener;

  UnavailableRetry(RetryListener listener) {
    this.listener = listener;
  }

  /** A deadline {@code budget} from now; a zero budget means "no retry". */
  static Deadline deadline(Duration budget) {
    // Saturated: a budget of centuries must not overflow toNanos() or the clock arithmetic.
    long nanos = budget.compareTo(LONGEST) > 0 ? LONGEST.toNanos() : budget.toNanos();
    return new Deadline(System.nanoTime() + nanos, budget);
  }

  /** Runs {@code call}, retrying it after 503/507 until {@code budget} has passed. */
  <T> T call(Duration budget, Supplier<T> call) {
    return call(deadline(budget), call);
  }

  /** Runs {@code call}, retrying it after 503/507 until {@code deadline}. */
  <T> T call(Deadline deadline, Supplier<T> call) {
    for (int attempt = 0; ; attempt++) {
      try {
        return call.get();
      } catch (ServiceUnavailableException unavailable) {
        long pause = BACKOFF.pauseNanos(attempt, ThreadLocalRandom.current(), unavailable);
        if (deadline.budget().isZero() || System.nanoTime() + pause - deadline.nanos() > 0) {
          throw unavailable;
        }
        RetryListener.notify(listener, unavailable, pause);
        try {
          TimeUnit.NANOSECONDS.sleep(pause);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new PicoTransportException(
              "interrupted while waiting to retry after: " + unavailable.getMessage(), e);
        }
      }
    }
  }

  /**
   * When retrying stops, as a {@link System#nanoTime} value.
   *
   * @param budget the budget it was made from; zero for no retries
   */
  record Deadline(long nanos, Duration budget) {}
}
