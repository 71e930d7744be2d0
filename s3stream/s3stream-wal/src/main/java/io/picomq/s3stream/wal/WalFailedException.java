package io.picomq.s3stream.wal;

/**
 * The WAL's storage failed in a way that retrying cannot fix (e.g. access denied). Sticky: once a
 * WAL has failed, every pending and later append fails with the same instance.
 */
public final class WalFailedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public WalFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
