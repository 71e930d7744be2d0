package io.picomq.s3stream.wal;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link WriteAheadLog#append} did with a record. Only {@link Accepted} took the record; every
 * other outcome left the caller's buffer untouched and nothing was written.
 */
public sealed interface WalAppendResult {

  /**
   * The record has its place in the log.
   *
   * @param offset the record's WAL offset, fixed now and never reused for other bytes
   * @param durable completes normally once the record and every record before it are stored, in
   *     offset order; completes exceptionally with {@link WalFencedException}, {@link
   *     WalFailedException} or {@link WalClosedException} if that can no longer happen. It is
   *     completed on the WAL's owner executor: dependent actions must not block.
   */
  record Accepted(long offset, CompletableFuture<Void> durable) implements WalAppendResult {
    public Accepted {
      Objects.requireNonNull(durable, "durable");
    }
  }

  /**
   * Too many bytes wait to be stored; retry once {@link WriteAheadLog#confirmOffset()} moves.
   *
   * @param unflushedBytes framed bytes appended but not yet stored
   * @param limitBytes the configured {@code maxUnflushedBytes}
   */
  record OverCapacity(long unflushedBytes, long limitBytes) implements WalAppendResult {}

  /**
   * A writer with a newer epoch took over this node's WAL; this instance will never store again.
   *
   * @param epoch this instance's epoch
   * @param reason how the takeover was noticed
   */
  record Fenced(long epoch, String reason) implements WalAppendResult {
    public Fenced {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** The WAL is not open for appends: not yet {@link WriteAheadLog#reset}, or shut down. */
  record Closed(String reason) implements WalAppendResult {
    public Closed {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * Storage failed in a way retrying cannot fix; the failure is sticky, every later append gets the
   * same one.
   *
   * @param error the sticky failure, its cause the storage error
   */
  record Failed(WalFailedException error) implements WalAppendResult {
    public Failed {
      Objects.requireNonNull(error, "error");
    }
  }
}
