package io.picomq.frontend.pico;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.CONFLICT;
import static io.netty.handler.codec.http.HttpResponseStatus.NO_CONTENT;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.Exchange;
import io.picomq.protocol.AppendBatch;
import io.picomq.protocol.DecodeException;
import io.picomq.protocol.PicoHeaders;
import io.picomq.protocol.PicoMediaTypes;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ProducerTag;
import io.picomq.stream.StreamService;
import io.picomq.stream.TrimOutcome;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code POST /{stream}}: append one record (a body in the stream's content type), a JSON batch or
 * a binary batch; seal with {@code Pico-Closed: true} (with or without records); or, without a
 * body, trim with {@code Pico-Trim-Seq}. {@code Pico-TTL} and {@code Pico-Expires-At} are checked
 * as at create ({@code 400} when invalid) and otherwise ignored. A batch is atomic: all its records
 * get consecutive seqs and one timestamp, or none is written.
 *
 * <p>Answers: {@code 200} with {@code Pico-Start-Seq}, {@code Pico-Next-Seq}, {@code
 * Pico-Timestamp}; {@code 204} for a producer's duplicate (acknowledged, nothing written); {@code
 * 409} for producer conflicts (with {@code Pico-Expected-Seq} and {@code Pico-Received-Seq} for a
 * gap), a failed {@code Pico-Match-Seq}, a sealed stream, or a body of another content type.
 */
final class Appends {

  private final StreamService service;
  private final InstantSource clock;

  Appends(StreamService service, InstantSource clock) {
    this.service = service;
    this.clock = clock;
  }

  void append(Exchange exchange, String name) throws InvalidRequest {
    // A stream's expiry is set when it is created; on an append these headers change nothing, but
    // one that could not be accepted at create is refused here too rather than silently dropped.
    Params.expiry(exchange, clock);
    OptionalLong trim =
        Params.optionalNonNegative(
            Params.header(exchange, PicoHeaders.TRIM_SEQ), PicoHeaders.TRIM_SEQ);
    Optional<ProducerTag> producer = producer(exchange);
    OptionalLong match =
        Params.optionalNonNegative(
            Params.header(exchange, PicoHeaders.MATCH_SEQ), PicoHeaders.MATCH_SEQ);
    boolean close = Params.flag(Params.header(exchange, PicoHeaders.CLOSED), PicoHeaders.CLOSED);
    byte[] body = exchange.body();
    if (trim.isPresent()) {
      if (body.length > 0 || producer.isPresent() || match.isPresent() || close) {
        throw new InvalidRequest(
            "Pico-Trim-Seq goes alone: no body, producer, Pico-Match-Seq or Pico-Closed");
      }
      trim(exchange, name, trim.getAsLong());
      return;
    }
    List<NewRecord> records;
    Optional<String> contentType = Optional.empty();
    if (body.length == 0) {
      records = List.of();
    } else if (Params.isMediaType(exchange.headers(), PicoMediaTypes.BATCH_JSON)) {
      records = JsonBatch.parse(body);
    } else if (Params.isMediaType(exchange.headers(), PicoMediaTypes.BATCH_BINARY)) {
      records = binaryBatch(body);
    } else {
      records = List.of(NewRecord.of(body));
      // Without a Content-Type the body is taken to be in the stream's type.
      contentType =
          Optional.ofNullable(Params.header(exchange, HttpHeaderNames.CONTENT_TYPE))
              .filter(type -> !type.isEmpty());
    }
    if (records.isEmpty() && !close) {
      throw new InvalidRequest(
          "an append needs a record (or Pico-Closed: true to seal, or Pico-Trim-Seq to trim)");
    }
    AppendRequest request =
        new AppendRequest(records, contentType, producer, Optional.empty(), match, close);
    exchange.answerWhenDone(
        service.append(name, request), outcome -> answer(exchange, request, outcome));
  }

  private static Optional<ProducerTag> producer(Exchange exchange) throws InvalidRequest {
    String id = Params.header(exchange, PicoHeaders.PRODUCER_ID);
    String epoch = Params.header(exchange, PicoHeaders.PRODUCER_EPOCH);
    String seq = Params.header(exchange, PicoHeaders.PRODUCER_SEQ);
    if (id == null && epoch == null && seq == null) {
      return Optional.empty();
    }
    if (id == null || epoch == null || seq == null) {
      throw new InvalidRequest(
          "Pico-Producer-Id, Pico-Producer-Epoch and Pico-Producer-Seq go together");
    }
    if (id.isEmpty()) {
      throw new InvalidRequest("Pico-Producer-Id must not be empty");
    }
    return Optional.of(
        new ProducerTag(
            id,
            Params.nonNegative(epoch, PicoHeaders.PRODUCER_EPOCH),
            Params.nonNegative(seq, PicoHeaders.PRODUCER_SEQ)));
  }

  private static List<NewRecord> binaryBatch(byte[] body) throws InvalidRequest {
    try {
      return AppendBatch.decode(body).stream()
          .map(entry -> new NewRecord(entry.headers(), entry.body()))
          .toList();
    } catch (DecodeException e) {
      throw new InvalidRequest("malformed_batch", "not a binary batch: " + e.getMessage());
    }
  }

  private void trim(Exchange exchange, String name, long beforeSeq) {
    switch (service.trim(name, beforeSeq).join()) {
      case TrimOutcome.Trimmed trimmed -> {
        HttpHeaders headers = new DefaultHttpHeaders();
        headers.set(PicoHeaders.START_SEQ, Long.toString(trimmed.startSeq()));
        if (service.head(name).join() instanceof HeadOutcome.Found found) {
          headers.set(PicoHeaders.NEXT_SEQ, Long.toString(found.stream().nextSeq()));
        }
        exchange.respond(OK, headers, Answers.EMPTY);
      }
      case TrimOutcome.BeyondTail beyond ->
          Answers.error(
              exchange,
              BAD_REQUEST,
              new DefaultHttpHeaders(),
              "trim_beyond_tail",
              "cannot trim past the stream's next seq " + beyond.nextSeq(),
              OptionalLong.of(beyond.nextSeq()));
      case TrimOutcome.NotFound notFound -> Answers.notFound(exchange);
      case TrimOutcome.Gone gone -> Answers.gone(exchange);
    }
  }

  private static void answer(Exchange exchange, AppendRequest request, AppendVerdict outcome) {
    HttpHeaders headers = new DefaultHttpHeaders();
    switch (outcome) {
      case AppendVerdict.Accepted accepted -> {
        headers.set(PicoHeaders.START_SEQ, Long.toString(accepted.startSeq()));
        headers.set(PicoHeaders.NEXT_SEQ, Long.toString(accepted.nextSeq()));
        headers.set(PicoHeaders.TIMESTAMP, Long.toString(accepted.timestampMillis()));
        if (accepted.closed()) {
          headers.set(PicoHeaders.CLOSED, "true");
        }
        request.producer().ifPresent(producer -> echo(headers, producer.epoch(), producer.seq()));
        exchange.respond(OK, headers, Answers.EMPTY);
      }
      case AppendVerdict.Duplicate duplicate -> {
        headers.set(PicoHeaders.NEXT_SEQ, Long.toString(duplicate.nextSeq()));
        if (duplicate.closed()) {
          headers.set(PicoHeaders.CLOSED, "true");
        }
        echo(headers, request.producer().orElseThrow().epoch(), duplicate.lastProducerSeq());
        exchange.respond(NO_CONTENT, headers, Answers.EMPTY);
      }
      case AppendVerdict.StaleEpoch stale -> {
        headers.set(PicoHeaders.PRODUCER_EPOCH, Long.toString(stale.currentEpoch()));
        Answers.error(
            exchange,
            CONFLICT,
            headers,
            "stale_producer_epoch",
            "producer epoch " + stale.currentEpoch() + " is active; this one is fenced",
            OptionalLong.empty());
      }
      case AppendVerdict.EpochMustStartAtZero epoch ->
          seqGap(
              exchange,
              headers,
              0,
              epoch.receivedSeq(),
              "a new producer epoch starts at Pico-Producer-Seq 0");
      case AppendVerdict.SeqGap gap ->
          seqGap(
              exchange,
              headers,
              gap.expectedSeq(),
              gap.receivedSeq(),
              "expected Pico-Producer-Seq "
                  + gap.expectedSeq()
                  + ", received "
                  + gap.receivedSeq());
      case AppendVerdict.TailMismatch mismatch ->
          Answers.error(
              exchange,
              CONFLICT,
              headers,
              "seq_mismatch",
              "Pico-Match-Seq is "
                  + mismatch.expectedNextSeq()
                  + " but the stream's next seq is "
                  + mismatch.nextSeq(),
              OptionalLong.of(mismatch.nextSeq()));
      case AppendVerdict.Closed closed -> {
        headers.set(PicoHeaders.CLOSED, "true");
        Answers.error(
            exchange,
            CONFLICT,
            headers,
            "stream_closed",
            "the stream is sealed",
            OptionalLong.of(closed.nextSeq()));
      }
      case AppendVerdict.ContentTypeMismatch mismatch ->
          Answers.error(
              exchange,
              CONFLICT,
              "content_type_mismatch",
              "the stream's content type is "
                  + mismatch.streamContentType()
                  + "; send a body of that type, or a Pico batch");
      case AppendVerdict.NotFound notFound -> Answers.notFound(exchange);
      case AppendVerdict.Gone gone -> Answers.gone(exchange);
      case AppendVerdict.WriterSeqRegression regression ->
          throw new IllegalStateException("a Pico append sends no writer seq, yet: " + regression);
    }
  }

  private static void echo(HttpHeaders headers, long epoch, long seq) {
    headers.set(PicoHeaders.PRODUCER_EPOCH, Long.toString(epoch));
    headers.set(PicoHeaders.PRODUCER_SEQ, Long.toString(seq));
  }

  private static void seqGap(
      Exchange exchange, HttpHeaders headers, long expected, long received, String message) {
    headers.set(PicoHeaders.EXPECTED_SEQ, Long.toString(expected));
    headers.set(PicoHeaders.RECEIVED_SEQ, Long.toString(received));
    Answers.error(exchange, CONFLICT, headers, "producer_seq_gap", message, OptionalLong.empty());
  }
}
