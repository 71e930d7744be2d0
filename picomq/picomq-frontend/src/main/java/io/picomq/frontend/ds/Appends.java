package io.picomq.frontend.ds;

import static io.netty.handler.codec.http.HttpResponseStatus.CONFLICT;
import static io.netty.handler.codec.http.HttpResponseStatus.FORBIDDEN;
import static io.netty.handler.codec.http.HttpResponseStatus.NO_CONTENT;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.Exchange;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ProducerTag;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamService;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * {@code POST /v1/stream/{name}}: append a body in the stream's content type (a JSON stream's body
 * may be an array of messages, each a record), and close with {@code Stream-Closed: true} (with or
 * without a body). An idempotent producer stamps its appends with {@code Producer-Id}, {@code
 * Producer-Epoch} and {@code Producer-Seq}; {@code Stream-Seq} makes a writer's appends rise.
 *
 * <p>Answers: {@code 200} for a producer's fresh data, {@code 204} for a plain append, a close or a
 * producer's duplicate, with {@code Stream-Next-Offset}; {@code 403} for a stale producer epoch;
 * {@code 409} for a producer's gap (with {@code Producer-Expected-Seq} and {@code
 * Producer-Received-Seq}), a {@code Stream-Seq} regression, a closed stream or a body of another
 * content type.
 */
final class Appends {

  private static final Pattern DIGITS = Pattern.compile("[0-9]+");
  private static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

  private final StreamService service;

  Appends(StreamService service) {
    this.service = service;
  }

  void append(Exchange exchange, String name) throws BadRequest {
    HttpHeaders request = exchange.headers();
    Optional<ProducerTag> producer = producer(request);
    boolean close = "true".equalsIgnoreCase(request.get(DsHeaders.CLOSED));
    Optional<String> writerSeq = Optional.ofNullable(request.get(DsHeaders.SEQ));
    byte[] body = exchange.body();

    AppendRequest append;
    if (body.length == 0) {
      if (!close) {
        throw new BadRequest("an append needs a body");
      }
      append =
          new AppendRequest(
              List.of(), Optional.empty(), producer, writerSeq, OptionalLong.empty(), true);
    } else {
      String contentType = request.get(HttpHeaderNames.CONTENT_TYPE);
      if (contentType == null || contentType.isBlank()) {
        throw new BadRequest("an append needs a Content-Type");
      }
      // The body is split by the stream's content type, so look the stream up first.
      StreamDescription stream;
      switch (service.head(name).join()) {
        case HeadOutcome.Found found -> stream = found.stream();
        case HeadOutcome.NotFound notFound -> {
          Answers.notFound(exchange);
          return;
        }
        case HeadOutcome.Gone gone -> {
          Answers.gone(exchange);
          return;
        }
      }
      if (!StreamService.sameMediaType(contentType, stream.contentType())) {
        Answers.contentTypeMismatch(exchange, stream.contentType());
        return;
      }
      List<NewRecord> records = Body.records(body, stream.contentType(), false);
      append =
          new AppendRequest(
              records, Optional.of(contentType), producer, writerSeq, OptionalLong.empty(), close);
    }
    AppendRequest sent = append;
    exchange.answerWhenDone(service.append(name, sent), outcome -> answer(exchange, sent, outcome));
  }

  /** The producer's stamp: all three headers or none. */
  private static Optional<ProducerTag> producer(HttpHeaders request) throws BadRequest {
    String producerId = request.get(DsHeaders.PRODUCER_ID);
    String producerEpoch = request.get(DsHeaders.PRODUCER_EPOCH);
    String producerSeq = request.get(DsHeaders.PRODUCER_SEQ);
    if (producerId == null && producerEpoch == null && producerSeq == null) {
      return Optional.empty();
    }
    if (producerId == null || producerEpoch == null || producerSeq == null) {
      throw new BadRequest("Producer-Id, Producer-Epoch and Producer-Seq go together");
    }
    if (producerId.isEmpty()) {
      throw new BadRequest("Producer-Id must not be empty");
    }
    long epoch = safeInteger(producerEpoch);
    long seq = safeInteger(producerSeq);
    if (epoch < 0 || seq < 0) {
      throw new BadRequest("Producer-Epoch and Producer-Seq are integers from 0 to 2^53-1");
    }
    return Optional.of(new ProducerTag(producerId, epoch, seq));
  }

  /** A non-negative integer no larger than 2^53-1 (safe in JavaScript), or -1. */
  private static long safeInteger(String value) {
    if (!DIGITS.matcher(value).matches() || value.length() > 16) {
      return -1;
    }
    long parsed = Long.parseLong(value);
    return parsed <= MAX_SAFE_INTEGER ? parsed : -1;
  }

  private static void answer(Exchange exchange, AppendRequest append, AppendVerdict outcome) {
    HttpHeaders headers = new DefaultHttpHeaders();
    switch (outcome) {
      case AppendVerdict.Accepted accepted -> {
        headers.set(DsHeaders.NEXT_OFFSET, OffsetToken.format(accepted.nextSeq()));
        if (accepted.closed()) {
          headers.set(DsHeaders.CLOSED, "true");
        }
        append
            .producer()
            .ifPresent(
                producer -> {
                  headers.set(DsHeaders.PRODUCER_EPOCH, Long.toString(producer.epoch()));
                  headers.set(DsHeaders.PRODUCER_SEQ, Long.toString(producer.seq()));
                });
        // A producer's fresh data answers 200; a plain append and a close-only call answer 204.
        boolean fresh = append.producer().isPresent() && !append.records().isEmpty();
        exchange.respond(fresh ? OK : NO_CONTENT, headers, Answers.EMPTY);
      }
      case AppendVerdict.Duplicate duplicate -> {
        headers.set(DsHeaders.NEXT_OFFSET, OffsetToken.format(duplicate.nextSeq()));
        headers.set(
            DsHeaders.PRODUCER_EPOCH, Long.toString(append.producer().orElseThrow().epoch()));
        headers.set(DsHeaders.PRODUCER_SEQ, Long.toString(duplicate.lastProducerSeq()));
        if (duplicate.closed()) {
          headers.set(DsHeaders.CLOSED, "true");
        }
        exchange.respond(NO_CONTENT, headers, Answers.EMPTY);
      }
      case AppendVerdict.StaleEpoch stale -> {
        headers.set(DsHeaders.PRODUCER_EPOCH, Long.toString(stale.currentEpoch()));
        exchange.respondError(
            FORBIDDEN, headers, "stale_producer_epoch", "a newer producer epoch is active");
      }
      case AppendVerdict.EpochMustStartAtZero epoch ->
          Answers.badRequest(exchange, "a new producer epoch starts at Producer-Seq 0");
      case AppendVerdict.SeqGap gap -> {
        headers.set(DsHeaders.PRODUCER_EXPECTED_SEQ, Long.toString(gap.expectedSeq()));
        headers.set(DsHeaders.PRODUCER_RECEIVED_SEQ, Long.toString(gap.receivedSeq()));
        exchange.respondError(
            CONFLICT,
            headers,
            "producer_seq_gap",
            "expected Producer-Seq " + gap.expectedSeq() + ", received " + gap.receivedSeq());
      }
      case AppendVerdict.WriterSeqRegression regression ->
          exchange.respondError(
              CONFLICT,
              "stream_seq_regression",
              "Stream-Seq must rise above " + regression.lastWriterSeq());
      case AppendVerdict.TailMismatch mismatch ->
          exchange.respondError(CONFLICT, "tail_mismatch", "the stream's tail moved");
      case AppendVerdict.Closed closed -> {
        headers.set(DsHeaders.CLOSED, "true");
        headers.set(DsHeaders.NEXT_OFFSET, OffsetToken.format(closed.nextSeq()));
        exchange.respondError(CONFLICT, headers, "stream_closed", "the stream is closed");
      }
      case AppendVerdict.ContentTypeMismatch mismatch ->
          Answers.contentTypeMismatch(exchange, mismatch.streamContentType());
      case AppendVerdict.NotFound notFound -> Answers.notFound(exchange);
      case AppendVerdict.Gone gone -> Answers.gone(exchange);
    }
  }
}
