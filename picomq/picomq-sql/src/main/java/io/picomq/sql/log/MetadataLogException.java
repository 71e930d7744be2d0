package io.picomq.sql.log;

/**
 * Why a proposal or a wait on a {@link SqlLog} failed. The subclasses are the whole list, so a
 * caller can switch over them.
 */
public abstract sealed class MetadataLogException extends RuntimeException
    permits LogStoppedException,
        LogClosedException,
        LogOverloadedException,
        ProposalOutcomeUnknownException {
  private static final long serialVersionUID = 1L;

  MetadataLogException(String message, Throwable cause) {
    super(message, cause);
  }
}
