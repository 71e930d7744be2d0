package io.picomq.s3stream.api;

/**
 * How a fetch may be served.
 *
 * @param fastRead fail with {@link FastReadMissException} instead of reading object storage
 */
public record ReadOptions(boolean fastRead) {
  public static final ReadOptions DEFAULT = new ReadOptions(false);
}
