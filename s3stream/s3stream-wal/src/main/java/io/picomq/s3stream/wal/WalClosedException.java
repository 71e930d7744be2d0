package io.picomq.s3stream.wal;

/** The WAL was closed abruptly ({@link WriteAheadLog#close()}) before the record was stored. */
public final class WalClosedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public WalClosedException(String message) {
    super(message);
  }
}
