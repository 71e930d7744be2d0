package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * No answer: the connection failed, was refused or reset, or the request timed out. Retrying may
 * succeed. Status 0, error code {@code transport}.
 */
public class PicoTransportException extends PicoException {

  /** An error as the server (or the client) reported it; see {@link PicoException}. */
  public PicoTransportException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }

  /** A transport failure described by {@code message}. */
  public PicoTransportException(String message, Throwable cause) {
    this(0, "transport", message, null, cause);
  }

  @Override
  public boolean isRetriable() {
    return true;
  }
}
