package io.picomq.s3stream.pgwal;

/**
 * The database cannot keep what the WAL promises (a server in recovery, {@code fsync = off}, a
 * promoted standby without a synchronous one): the WAL refuses to start on it. The message says
 * what was found and how to proceed.
 */
public final class UnsafeDatabaseException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public UnsafeDatabaseException(String message) {
    super(message);
  }
}
