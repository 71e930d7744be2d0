package io.picomq.client;

import java.time.Duration;

/**
 * Told of every retry the SDK makes by itself: a one-shot call retried after {@code 503}, a
 * producer session resending a batch, a consumer reading again after a failure. For counting and
 * logging (e.g. {@code pico bench} reports how many retries a run needed); it cannot change what
 * the SDK does.
 *
 * <p>Called on SDK threads (the caller's for one-shot calls, a producer's sender threads, a
 * consumer's feed thread), possibly on several at once: keep it quick and thread-safe. What it
 * throws is ignored.
 */
@FunctionalInterface
public interface RetryListener {

  /** A listener that does nothing (the default). */
  RetryListener NONE = (failure, pause) -> {};

  /**
   * The SDK will try again after {@code pause}.
   *
   * @param failure what the failed attempt got (a {@link ServiceUnavailableException} for a 503)
   */
  void onRetry(PicoException failure, Duration pause);

  /** Calls {@code listener}, ignoring what it throws: a listener must not break SDK machinery. */
  static void notify(RetryListener listener, PicoException failure, long pauseNanos) {
    try {
      listener.onRetry(failure, Duration.ofNanos(pauseNanos));
    } catch (RuntimeException ignored) {
      // Documented: what a listener throws is ignored.
    }
  }
}
