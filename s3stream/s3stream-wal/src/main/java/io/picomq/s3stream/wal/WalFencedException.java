package io.picomq.s3stream.wal;

/** A newer epoch of the same node owns the WAL; this writer stores nothing more. */
public final class WalFencedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final long epoch;

  public WalFencedException(long epoch, String reason) {
    super("WAL writer of epoch " + epoch + " is fenced: " + reason);
    this.epoch = epoch;
  }

  /** The epoch of the fenced writer. */
  public long epoch() {
    return epoch;
  }
}
