package io.picomq.s3stream.api;

/**
 * A takeover lost the failed node's WAL to a newer claimant: the node itself came back, or another
 * taker fenced it under a higher epoch. Whatever the takeover committed stays committed (it is
 * below the committed ends the newer claimant reads); the newer claimant finishes the rest. Try
 * again later: once the node's streams are closed, a takeover finds nothing to do.
 */
public final class TakeoverFencedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int nodeId;
  private final long fenceEpoch;

  public TakeoverFencedException(int nodeId, long fenceEpoch, Throwable cause) {
    super(
        "the takeover of node "
            + nodeId
            + "'s WAL at epoch "
            + fenceEpoch
            + " was fenced by a newer epoch: "
            + cause.getMessage(),
        cause);
    this.nodeId = nodeId;
    this.fenceEpoch = fenceEpoch;
  }

  /** The failed node whose WAL the takeover lost. */
  public int nodeId() {
    return nodeId;
  }

  /** The epoch the takeover had fenced the WAL at. */
  public long fenceEpoch() {
    return fenceEpoch;
  }
}
