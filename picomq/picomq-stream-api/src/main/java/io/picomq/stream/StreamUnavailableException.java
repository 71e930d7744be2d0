package io.picomq.stream;

import java.util.Objects;

/**
 * The service cannot do what was asked now, for a reason that passes: a {@link StreamService}
 * future fails with this, and a frontend answers {@code 503 Service Unavailable} (or {@code 507
 * Insufficient Storage} for {@link Reason#DISK_FULL}) with {@code Retry-After}. Every other
 * exception from the service is a bug.
 *
 * <p>{@link #mayHaveCompleted()} tells a client whether to check before repeating: true when the
 * call was handed on (to the engine, to the metadata log) and may still take effect after this
 * answer, so only an idempotent retry (a producer's same seq, a create with the same configuration)
 * is safe; false when the call was refused before it changed anything.
 */
public final class StreamUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why the service is unavailable; each passes on its own or once an operator acts. */
  public enum Reason {
    /**
     * The engine's write buffers are full (object storage is slower than the appends): the append
     * was refused before anything was written.
     */
    OVER_CAPACITY(1),
    /** Object storage (the data bucket or the WAL) fails or does not answer. */
    STORAGE_UNAVAILABLE(5),
    /** Object storage is out of space ({@code No space left on device}); an operator must act. */
    DISK_FULL(30),
    /** The metadata database fails or does not answer, or the metadata log stopped. */
    METADATA_UNAVAILABLE(5),
    /**
     * The call did not complete within the node's request timeout, and neither storage nor the
     * metadata log is known to fail.
     */
    TIMED_OUT(1),
    /**
     * This node no longer owns the stream (a newer epoch fenced it, or it is moving to another
     * node); a retry is routed to the owner.
     */
    NOT_OWNER(1),
    /**
     * The node that had the stream open stopped, and the stream waits until that node's WAL is
     * recovered (by the node's next process, or by a live node taking it over); seconds.
     */
    RECOVERING(2);

    private final int retryAfterSeconds;

    Reason(int retryAfterSeconds) {
      this.retryAfterSeconds = retryAfterSeconds;
    }

    /** How long a client should wait before retrying: the {@code Retry-After} answered. */
    public int retryAfterSeconds() {
      return retryAfterSeconds;
    }
  }

  private final Reason reason;
  private final boolean mayHaveCompleted;

  public StreamUnavailableException(
      Reason reason, boolean mayHaveCompleted, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.mayHaveCompleted = mayHaveCompleted;
  }

  public Reason reason() {
    return reason;
  }

  /** Whether the call may still take effect after this answer (see the class comment). */
  public boolean mayHaveCompleted() {
    return mayHaveCompleted;
  }

  /** The same failure, for a call that changes nothing (a read): nothing can complete later. */
  public StreamUnavailableException forRead() {
    return mayHaveCompleted
        ? new StreamUnavailableException(reason, false, getMessage(), getCause())
        : this;
  }
}
