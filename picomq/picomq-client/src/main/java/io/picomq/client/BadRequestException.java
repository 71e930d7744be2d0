package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/** 400, 413, 414 or 431: the server refused the request as malformed or too large. */
public class BadRequestException extends PicoException {

  /** An error as the server (or the client) reported it; see {@link PicoException}. */
  public BadRequestException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }
}
