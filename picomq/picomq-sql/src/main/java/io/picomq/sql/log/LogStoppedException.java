package io.picomq.sql.log;

/**
 * The node's sink stopped at a row it could not apply; from then on it refuses metadata writes. The
 * node never skips such a row: skipping would give it a state the other nodes do not have. An
 * operator must repair the row (or restore the database) and restart the node.
 */
public final class LogStoppedException extends MetadataLogException {
  private static final long serialVersionUID = 1L;

  /** What was wrong with the row. */
  public enum Reason {
    /** The row, or a command in it, is not a valid encoding. */
    UNDECODABLE_ROW("undecodable"),
    /** The snapshot row needed to cross a truncation is not a valid encoding. */
    UNDECODABLE_SNAPSHOT("undecodable (snapshot)"),
    /** The state machine threw while applying a command of the row: a bug. */
    APPLY_FAILED("could not be applied"),
    /** The row is absent although later rows exist, and no snapshot covers it. */
    MISSING("missing and no snapshot covers it");

    private final String words;

    Reason(String words) {
      this.words = words;
    }
  }

  private final long rowIndex;
  private final Reason reason;

  LogStoppedException(long rowIndex, Reason reason, String detail, Throwable cause) {
    super("metadata log stopped: row " + rowIndex + " " + reason.words + ": " + detail, cause);
    this.rowIndex = rowIndex;
    this.reason = reason;
  }

  /** The index of the row the sink stopped at. */
  public long rowIndex() {
    return rowIndex;
  }

  public Reason reason() {
    return reason;
  }
}
