package io.picomq.frontend.pico;

/**
 * A request the protocol cannot accept as sent: answered 400 with {@code error} and the message.
 * Thrown only before anything has been answered or changed.
 */
final class InvalidRequest extends Exception {

  private static final long serialVersionUID = 1L;

  private final String error;

  InvalidRequest(String error, String message) {
    super(message);
    this.error = error;
  }

  /** A malformed request, {@code bad_request}. */
  InvalidRequest(String message) {
    this("bad_request", message);
  }

  String error() {
    return error;
  }
}
