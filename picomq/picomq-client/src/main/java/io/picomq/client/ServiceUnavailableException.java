package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code 503 Service Unavailable} or {@code 507 Insufficient Storage}: the server is up but cannot
 * serve the request now (its storage or metadata database is failing, it is over capacity, the
 * request timed out inside it, the stream is being recovered after a node failed, or its disk is
 * full). The request may or may not have taken effect: an append answered 503 after a timeout may
 * still complete, which is why the SDK resends only what is safe to resend (see {@link
 * PicoClient}).
 *
 * <p>{@link #retryAfter()} is the server's {@code Retry-After}: how long it suggests waiting before
 * the next try. The SDK's own retries never come back sooner (see {@link
 * PicoClient.Builder#retryUnavailable}).
 */
public class ServiceUnavailableException extends ServerException {

  private final Optional<Duration> retryAfter;

  /**
   * An unavailability as the server reported it; see {@link PicoException}.
   *
   * @param retryAfter the server's {@code Retry-After}, if it gave one
   */
  public ServiceUnavailableException(
      int status,
      String errorCode,
      String message,
      JsonNode body,
      Throwable cause,
      Optional<Duration> retryAfter) {
    super(status, errorCode, message, body, cause);
    this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
  }

  /** The server's {@code Retry-After}, if it gave one; never negative. */
  public Optional<Duration> retryAfter() {
    return retryAfter;
  }

  /** Whether the server's storage is full ({@code 507}): an operator has to free space. */
  public boolean isStorageFull() {
    return status() == 507;
  }
}
