package io.picomq.sql.log;

/** Bytes that are not a valid encoding: unknown version, truncated, or malformed. */
public final class DecodeException extends Exception {
  private static final long serialVersionUID = 1L;

  public DecodeException(String message) {
    super(message);
  }

  public DecodeException(String message, Throwable cause) {
    super(message, cause);
  }
}
