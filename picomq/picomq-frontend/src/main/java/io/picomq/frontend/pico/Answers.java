package io.picomq.frontend.pico;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.GONE;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.http.FailureAnswers;
import io.picomq.protocol.PicoHeaders;
import java.util.OptionalLong;

/**
 * The protocol's error answers: {@code {"error": "...", "message": "...", "next_seq": n}}, where
 * {@code error} is a stable snake-case code, {@code message} says what was wrong in words, and
 * {@code next_seq} (the stream's tail) appears when it helps the client recover. An error that
 * carries {@code next_seq} carries it as {@code Pico-Next-Seq} too.
 */
final class Answers {

  static final byte[] EMPTY = new byte[0];

  private Answers() {}

  static void error(
      Exchange exchange,
      HttpResponseStatus status,
      HttpHeaders headers,
      String error,
      String message,
      OptionalLong nextSeq) {
    headers.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    nextSeq.ifPresent(seq -> headers.set(PicoHeaders.NEXT_SEQ, Long.toString(seq)));
    exchange.respond(status, headers, body(error, message, nextSeq));
  }

  static void error(Exchange exchange, HttpResponseStatus status, String error, String message) {
    error(exchange, status, new DefaultHttpHeaders(), error, message, OptionalLong.empty());
  }

  static void invalid(Exchange exchange, InvalidRequest invalid) {
    error(exchange, BAD_REQUEST, invalid.error(), invalid.getMessage());
  }

  static void notFound(Exchange exchange) {
    error(exchange, NOT_FOUND, "stream_not_found", "no stream " + exchange.path());
  }

  /** A soft-deleted stream: deleted, but forks (Durable Streams) still read its records. */
  static void gone(Exchange exchange) {
    error(
        exchange,
        GONE,
        "stream_gone",
        "the stream was deleted; forks of it still read its records");
  }

  /**
   * A failure surfaced after a wait, off the listener's thread (which would otherwise answer it):
   * answered as {@link FailureAnswers} says (a bug: logged, 500), unless an answer has already
   * begun.
   */
  static void bug(Exchange exchange, RuntimeException bug) {
    try {
      FailureAnswers.answer(exchange, bug);
    } catch (IllegalStateException alreadyAnswered) {
      // The response has begun; the connection's end is all the client will see.
    }
  }

  static byte[] body(String error, String message, OptionalLong nextSeq) {
    return Json.write(
        json -> {
          json.writeStartObject();
          json.writeStringField("error", error);
          json.writeStringField("message", message);
          if (nextSeq.isPresent()) {
            json.writeNumberField("next_seq", nextSeq.getAsLong());
          }
          json.writeEndObject();
        });
  }
}
