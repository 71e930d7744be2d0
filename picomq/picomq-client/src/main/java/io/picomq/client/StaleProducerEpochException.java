package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * 409 (403 under Durable Streams): an idempotent producer sent an epoch older than one the server
 * has seen for its id: a newer instance of the producer has taken over (it is fenced).
 */
public class StaleProducerEpochException extends ConflictException {

  /** An error as the server (or the client) reported it; see {@link PicoException}. */
  public StaleProducerEpochException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }
}
