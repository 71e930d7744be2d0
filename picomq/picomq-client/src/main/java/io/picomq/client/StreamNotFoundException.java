package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/** 404: the stream does not exist (or no longer does). */
public class StreamNotFoundException extends PicoException {

  /** An error as the server (or the client) reported it; see {@link PicoException}. */
  public StreamNotFoundException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }
}
