package io.picomq.server.metadata;

import io.picomq.meta.apply.RejectReason;
import io.picomq.meta.command.Command;

/** Apply refused a command this node proposed; {@link #reason()} says why. */
public final class MetadataRejection extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final RejectReason reason;

  public MetadataRejection(Command command, RejectReason reason, String message) {
    super(command.getClass().getSimpleName() + " rejected: " + reason + ": " + message);
    this.reason = reason;
  }

  public RejectReason reason() {
    return reason;
  }
}
