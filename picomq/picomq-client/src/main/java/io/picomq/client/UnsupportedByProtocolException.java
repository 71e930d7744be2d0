package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The operation does not exist in the client's {@link Protocol} (e.g. listing or trimming streams
 * under Durable Streams, or record headers there). Thrown client-side: no request was sent. Status
 * 0, error code {@code unsupported_by_protocol}.
 */
public class UnsupportedByProtocolException extends PicoException {

  /** An error as the server (or the client) reported it; see {@link PicoException}. */
  public UnsupportedByProtocolException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }

  /** The operation {@code what} is missing from {@code protocol}. */
  public UnsupportedByProtocolException(Protocol protocol, String what) {
    this(0, "unsupported_by_protocol", what + " is not supported by " + protocol, null, null);
  }
}
