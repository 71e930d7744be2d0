package io.picomq.protocol;

/**
 * The {@code Pico-*} HTTP headers. Names are given in their canonical capitalisation; HTTP compares
 * header names case-insensitively (HTTP/2 sends them in lower case).
 */
public final class PicoHeaders {

  private PicoHeaders() {}

  /** The seq the next appended record gets: the tail, or where a reader continues. */
  public static final String NEXT_SEQ = "Pico-Next-Seq";

  /** The first seq of an append's records; on a stream, its first readable seq. */
  public static final String START_SEQ = "Pico-Start-Seq";

  /** The time (unix milliseconds) the server stamped an append's records with. */
  public static final String TIMESTAMP = "Pico-Timestamp";

  /** An idempotent producer's id (non-empty, chosen by the client). */
  public static final String PRODUCER_ID = "Pico-Producer-Id";

  /** An idempotent producer's epoch: a restarted producer takes a higher one. */
  public static final String PRODUCER_EPOCH = "Pico-Producer-Epoch";

  /** An idempotent producer's call number within its epoch, from 0. */
  public static final String PRODUCER_SEQ = "Pico-Producer-Seq";

  /** On a producer conflict: the producer seq the server expected. */
  public static final String EXPECTED_SEQ = "Pico-Expected-Seq";

  /** On a producer conflict: the producer seq the server received. */
  public static final String RECEIVED_SEQ = "Pico-Received-Seq";

  /** A conditional append: only if the stream's tail is at this seq. */
  public static final String MATCH_SEQ = "Pico-Match-Seq";

  /** {@code true}: the stream is (or is to be) sealed. On a read: sealed and fully read. */
  public static final String CLOSED = "Pico-Closed";

  /** On an append without a body: drop the records below this seq. */
  public static final String TRIM_SEQ = "Pico-Trim-Seq";

  /** A stream's sliding time to live, in seconds since its last activity. */
  public static final String TTL = "Pico-TTL";

  /** When a stream expires: RFC 3339 (answers use it) or unix milliseconds (requests may). */
  public static final String EXPIRES_AT = "Pico-Expires-At";

  /** {@code true}: the read reached the stream's tail. */
  public static final String UP_TO_DATE = "Pico-Up-To-Date";

  /** An opaque token a live reader echoes in its next request's {@code cursor} parameter. */
  public static final String CURSOR = "Pico-Cursor";
}
