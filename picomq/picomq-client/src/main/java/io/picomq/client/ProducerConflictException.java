package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * 409: an idempotent producer's seq is not the one the server expected next (a gap: appends were
 * lost on the way, or two sessions share one producer id and epoch).
 */
public class ProducerConflictException extends ConflictException {

  private final long expectedSeq;
  private final long receivedSeq;

  /** An error as the server reported it, with the producer seqs it expected and received. */
  public ProducerConflictException(
      int status,
      String errorCode,
      String message,
      JsonNode body,
      Throwable cause,
      long expectedSeq,
      long receivedSeq) {
    super(status, errorCode, message, body, cause);
    this.expectedSeq = expectedSeq;
    this.receivedSeq = receivedSeq;
  }

  /** The producer seq the server expected; -1 when it did not say. */
  public long expectedSeq() {
    return expectedSeq;
  }

  /** The producer seq the server received; -1 when it did not say. */
  public long receivedSeq() {
    return receivedSeq;
  }
}
