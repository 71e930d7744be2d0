package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * 409: the request conflicts with the stream's state. Subclasses name the common cases; this class
 * itself covers the rest (e.g. creating a stream that exists with another content type).
 */
public class ConflictException extends PicoException {

  /** An error as the server (or the client) reported it; see {@link PicoException}. */
  public ConflictException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }
}
