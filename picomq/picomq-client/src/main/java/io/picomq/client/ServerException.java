package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/** 5xx: the server failed; retrying may succeed. */
public class ServerException extends PicoException {

  /** An error as the server (or the client) reported it; see {@link PicoException}. */
  public ServerException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }

  @Override
  public boolean isRetriable() {
    return true;
  }
}
