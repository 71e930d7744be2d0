package io.picomq.s3stream.pgwal;

/** What inserting one batch's row did. */
sealed interface InsertOutcome {

  /** The row is stored now. */
  record Inserted() implements InsertOutcome {}

  /**
   * The row was there already, byte for byte: an earlier attempt committed although its answer was
   * lost (the connection broke at commit). Stored, then.
   */
  record AlreadyStored() implements InsertOutcome {}

  /** Another row holds this start offset: the log is corrupt. */
  record Conflict(String description) implements InsertOutcome {}

  /** A newer epoch claimed the node; nothing was inserted. */
  record Fenced(String reason) implements InsertOutcome {}
}
