package io.picomq.client;

import java.time.Duration;

/**
 * Follows one stream and delivers its records in seq order, each exactly once. After any
 * disconnect, timeout or 5xx answer it pauses (exponential backoff) and resumes from the seq after
 * the last record it delivered, so a server restart neither loses nor repeats a record.
 *
 * <p>Errors that retrying cannot fix (the stream was deleted, a bad request) are thrown from {@link
 * #poll}. Not thread-safe: one thread polls. Close it to release its connection.
 */
public interface Consumer extends AutoCloseable {

  /**
   * The next records, waiting up to {@code timeout} for some. Answers an empty batch when none
   * arrived in time, and at once when the stream is closed and fully read ({@link #isClosed}).
   *
   * @throws StreamNotFoundException if the stream does not exist (or no longer does)
   * @throws PicoException for other answers that a retry cannot fix
   */
  ReadResult poll(Duration timeout);

  /** The seq of the next record this consumer will deliver. */
  long position();

  /** Whether the stream is sealed and this consumer has delivered all of it. */
  boolean isClosed();

  /** Stops following; a {@link #poll} in progress on another thread returns or fails soon. */
  @Override
  void close();
}
