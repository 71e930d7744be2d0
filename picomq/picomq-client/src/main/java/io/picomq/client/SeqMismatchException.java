package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * 409 {@code seq_mismatch}: a conditional append ({@link AppendOptions#matchSeq}) found the tail
 * elsewhere. {@link #nextSeq()} is where the tail actually is.
 */
public class SeqMismatchException extends ConflictException {

  private final long nextSeq;

  /** An error as the server reported it, with the stream's actual tail. */
  public SeqMismatchException(
      int status, String errorCode, String message, JsonNode body, Throwable cause, long nextSeq) {
    super(status, errorCode, message, body, cause);
    this.nextSeq = nextSeq;
  }

  /** The stream's actual tail; -1 when the server did not say. */
  public long nextSeq() {
    return nextSeq;
  }
}
