package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * 401: the request carried no valid credential. The token is missing, malformed, unknown, expired
 * or revoked, and the server does not say which. Give the client a valid token ({@link
 * PicoClient.Builder#token}); retrying the same request will not help.
 */
public class UnauthorizedException extends PicoException {

  /** An error as the server reported it; see {@link PicoException}. */
  public UnauthorizedException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }
}
