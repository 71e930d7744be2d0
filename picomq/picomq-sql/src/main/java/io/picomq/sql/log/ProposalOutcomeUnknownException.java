package io.picomq.sql.log;

/**
 * This node cannot report the proposal's result. Two rare cases lead here:
 *
 * <ul>
 *   <li>the proposal's row was committed, but this node's tailer crossed it by reinstalling a
 *       snapshot (it lagged more than a snapshot interval behind): the command took effect exactly
 *       once, read the current view to learn how;
 *   <li>a write failed ambiguously (the connection broke during the insert) and, by the time the
 *       database answered again, the row it may have written had been truncated: the command took
 *       effect at most once.
 * </ul>
 */
public final class ProposalOutcomeUnknownException extends MetadataLogException {
  private static final long serialVersionUID = 1L;

  ProposalOutcomeUnknownException(String message) {
    super(message, null);
  }
}
