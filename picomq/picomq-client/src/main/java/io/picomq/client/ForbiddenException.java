package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * 403: the token is valid but its scope does not allow this: another stream, an operation it was
 * not granted (an append with a read-only token), another listener (audience), or issuing a token
 * wider than itself. Under Durable Streams a {@code 403} about a producer's epoch is a {@link
 * StaleProducerEpochException} instead.
 */
public class ForbiddenException extends PicoException {

  /** An error as the server reported it; see {@link PicoException}. */
  public ForbiddenException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }
}
