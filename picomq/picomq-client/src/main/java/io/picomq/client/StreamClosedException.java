package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/** 409 {@code stream_closed}: the stream is sealed and takes no more appends. */
public class StreamClosedException extends ConflictException {

  /** An error as the server (or the client) reported it; see {@link PicoException}. */
  public StreamClosedException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }
}
