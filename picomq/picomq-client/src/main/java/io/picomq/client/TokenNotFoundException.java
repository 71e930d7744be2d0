package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/** 404 from {@link AdminClient#revokeToken}: no token has that id (or it was revoked already). */
public class TokenNotFoundException extends PicoException {

  /** An error as the server reported it; see {@link PicoException}. */
  public TokenNotFoundException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }
}
