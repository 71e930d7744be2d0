package io.picomq.s3stream.api;

/** A {@link ReadOptions#fastRead()} fetch needed object storage and was refused. */
public final class FastReadMissException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public FastReadMissException(long streamId, long offset) {
    super("stream " + streamId + ": offset " + offset + " is not cached");
  }
}
