package io.picomq.frontend.access;

/** A scope that cannot be accepted; the message names the bad value (answered 400). */
public final class InvalidScope extends Exception {
  public InvalidScope(String message) {
    super(message, null, false, false);
  }
}
