package io.picomq.s3stream.api;

/**
 * The metadata plane refused a request: the caller's view is stale (fenced epoch, unknown stream,
 * offsets that do not line up). Retrying the same request cannot succeed.
 */
public final class MetadataRejectedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Reason reason;

  public MetadataRejectedException(Reason reason, String message) {
    super(reason + ": " + message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }

  /** Why a request was refused. */
  public enum Reason {
    UNKNOWN_STREAM,
    FENCED,
    OFFSET_MISMATCH,
    UNKNOWN_OBJECT,
    NODE_FENCED,
    STREAM_CLOSED,
    /** The stream is open on another node that is still running. */
    OPEN_ON_OTHER_NODE
  }
}
