package io.picomq.sql.log;

/**
 * Too many proposals are waiting to be written; this one was not queued and will not be applied.
 * Retry later. The limit is {@link LogOptions#maxPendingProposals()}.
 */
public final class LogOverloadedException extends MetadataLogException {
  private static final long serialVersionUID = 1L;

  LogOverloadedException(int limit) {
    super("metadata log overloaded: " + limit + " proposals are already waiting", null);
  }
}
