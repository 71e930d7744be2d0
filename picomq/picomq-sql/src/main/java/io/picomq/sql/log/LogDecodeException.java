package io.picomq.sql.log;

/** Bytes that are not a valid encoding: unknown version, truncated, or malformed. */
public final class LogDecodeException extends Exception {
  private static final long serialVersionUID = 1L;

  public LogDecodeException(String message) {
    super(message);
  }

  public LogDecodeException(String message, Throwable cause) {
    super(message, cause);
  }
}
