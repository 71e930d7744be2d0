package io.picomq.frontend.ds;

/** The protocol's header names and their spelling on the wire. */
final class DsHeaders {

  static final String NEXT_OFFSET = "Stream-Next-Offset";
  static final String UP_TO_DATE = "Stream-Up-To-Date";
  static final String CURSOR = "Stream-Cursor";
  static final String CLOSED = "Stream-Closed";
  static final String TTL = "Stream-TTL";
  static final String EXPIRES_AT = "Stream-Expires-At";
  static final String SEQ = "Stream-Seq";
  static final String FORKED_FROM = "Stream-Forked-From";
  static final String FORK_OFFSET = "Stream-Fork-Offset";
  static final String FORK_SUB_OFFSET = "Stream-Fork-Sub-Offset";
  static final String SSE_DATA_ENCODING = "Stream-SSE-Data-Encoding";
  static final String PRODUCER_ID = "Producer-Id";
  static final String PRODUCER_EPOCH = "Producer-Epoch";
  static final String PRODUCER_SEQ = "Producer-Seq";
  static final String PRODUCER_EXPECTED_SEQ = "Producer-Expected-Seq";
  static final String PRODUCER_RECEIVED_SEQ = "Producer-Received-Seq";

  /** Request headers a browser may send cross-origin (answered in CORS preflights). */
  static final String ALLOWED_REQUEST_HEADERS =
      String.join(
          ", ",
          "Content-Type",
          "Authorization",
          "If-None-Match",
          "Last-Event-ID",
          SEQ,
          TTL,
          EXPIRES_AT,
          CLOSED,
          PRODUCER_ID,
          PRODUCER_EPOCH,
          PRODUCER_SEQ,
          FORKED_FROM,
          FORK_OFFSET,
          FORK_SUB_OFFSET);

  /** Response headers a browser script may read. */
  static final String EXPOSED_RESPONSE_HEADERS =
      String.join(
          ", ",
          NEXT_OFFSET,
          CURSOR,
          UP_TO_DATE,
          CLOSED,
          TTL,
          EXPIRES_AT,
          SSE_DATA_ENCODING,
          PRODUCER_EPOCH,
          PRODUCER_SEQ,
          PRODUCER_EXPECTED_SEQ,
          PRODUCER_RECEIVED_SEQ,
          "ETag",
          "Content-Type",
          "Location");

  private DsHeaders() {}
}
