package io.picomq.frontend.ds;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.CONFLICT;
import static io.netty.handler.codec.http.HttpResponseStatus.GONE;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.Exchange;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.StreamDescription;

/**
 * The protocol's answers shared by its requests: the error answers ({@code {"error": code,
 * "message": words}}, the codes stable and snake-case) and the headers that describe a stream.
 */
final class Answers {

  static final byte[] EMPTY = new byte[0];

  private Answers() {}

  static void badRequest(Exchange exchange, String message) {
    exchange.respondError(BAD_REQUEST, "bad_request", message);
  }

  static void notFound(Exchange exchange) {
    exchange.respondError(NOT_FOUND, "stream_not_found", "no such stream");
  }

  /** A soft-deleted stream: deleted, but its forks still read its records. */
  static void gone(Exchange exchange) {
    exchange.respondError(
        GONE, "stream_gone", "the stream was deleted; forks of it still read its records");
  }

  static void contentTypeMismatch(Exchange exchange, String streamContentType) {
    exchange.respondError(
        CONFLICT, "content_type_mismatch", "the stream's content type is " + streamContentType);
  }

  /** Answers a read that found no batch. */
  static void miss(Exchange exchange, ReadOutcome outcome) {
    switch (outcome) {
      case ReadOutcome.NotFound notFound -> notFound(exchange);
      case ReadOutcome.Gone gone -> gone(exchange);
      case ReadOutcome.Trimmed trimmed ->
          exchange.respondError(
              GONE,
              "offset_trimmed",
              "the offset is before the earliest retained record, "
                  + OffsetToken.format(trimmed.startSeq()));
      case ReadOutcome.BeyondTail beyond ->
          exchange.respondError(
              BAD_REQUEST,
              "offset_beyond_tail",
              "the offset is past the stream's tail " + OffsetToken.format(beyond.nextSeq()));
      case ReadOutcome.Batch batch ->
          throw new IllegalArgumentException("a batch is not a miss: " + batch.nextSeq());
    }
  }

  /** Answers a lookup that found no live stream. */
  static void miss(Exchange exchange, HeadOutcome outcome) {
    switch (outcome) {
      case HeadOutcome.NotFound notFound -> notFound(exchange);
      case HeadOutcome.Gone gone -> gone(exchange);
      case HeadOutcome.Found found ->
          throw new IllegalArgumentException("a live stream is not a miss: " + found.stream());
    }
  }

  /** What a create and a {@code HEAD} say about a stream: content type, tail, closure. */
  static HttpHeaders streamHeaders(StreamDescription stream) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, stream.contentType());
    headers.set(DsHeaders.NEXT_OFFSET, OffsetToken.format(stream.nextSeq()));
    if (stream.closed()) {
      headers.set(DsHeaders.CLOSED, "true");
    }
    return headers;
  }
}
