package io.picomq.sql.log;

/**
 * The log was closed (or not yet started) before the proposal was applied. A proposal failed this
 * way may still have been committed: its row, if written, is applied by every node that reads it,
 * including this node after a restart.
 */
public final class LogClosedException extends MetadataLogException {
  private static final long serialVersionUID = 1L;

  LogClosedException(String message) {
    super(message, null);
  }
}
