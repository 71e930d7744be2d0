package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.protocol.AppendBatch;
import io.picomq.protocol.DecodeException;
import io.picomq.protocol.PicoHeaders;
import io.picomq.protocol.PicoMediaTypes;
import io.picomq.protocol.ReadBatch;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Pico protocol: streams at {@code BASE/{stream}}, appends as binary batches ({@link
 * AppendBatch}), reads in the binary format ({@link ReadBatch}), which carry seqs, timestamps and
 * headers exactly.
 */
final class PicoDialect implements Dialect {

  private final HttpTransport transport;
  private final Endpoints endpoints;
  private final Duration requestTimeout;
  private final Duration liveTimeout;

  /**
   * @param liveTimeout how long a long-poll may take: the request timeout plus the server's wait
   */
  PicoDialect(
      HttpTransport transport, Endpoints endpoints, Duration requestTimeout, Duration liveTimeout) {
    this.transport = transport;
    this.endpoints = endpoints;
    this.requestTimeout = requestTimeout;
    this.liveTimeout = liveTimeout;
  }

  @Override
  public Protocol protocol() {
    return Protocol.PICO;
  }

  private HttpResponse<byte[]> call(HttpCall call) {
    return Responses.success(Protocol.PICO, transport.send(call));
  }

  @Override
  public StreamInfo create(String stream, CreateOptions options) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", options.contentType());
    options.ttl().ifPresent(ttl -> headers.put(PicoHeaders.TTL, Long.toString(ttl.toSeconds())));
    options.expiresAt().ifPresent(at -> headers.put(PicoHeaders.EXPIRES_AT, at.toString()));
    if (options.closed()) {
      headers.put(PicoHeaders.CLOSED, "true");
    }
    HttpCall put =
        HttpCall.of("PUT", endpoints.stream(stream), requestTimeout).withHeaders(headers);
    HttpHeaders answer = call(put).headers();
    return new StreamInfo(
        Endpoints.name(stream),
        answer.firstValue("Content-Type").orElse(options.contentType()),
        Responses.number(answer, PicoHeaders.START_SEQ).orElse(0),
        Responses.requiredNumber(answer, PicoHeaders.NEXT_SEQ),
        Responses.flag(answer, PicoHeaders.CLOSED),
        options.ttl(),
        options.expiresAt());
  }

  @Override
  public StreamInfo head(String stream) {
    HttpHeaders answer =
        call(HttpCall.of("HEAD", endpoints.stream(stream), requestTimeout)).headers();
    return new StreamInfo(
        Endpoints.name(stream),
        answer.firstValue("Content-Type").orElse(CreateOptions.DEFAULT_CONTENT_TYPE),
        Responses.number(answer, PicoHeaders.START_SEQ).orElse(0),
        Responses.requiredNumber(answer, PicoHeaders.NEXT_SEQ),
        Responses.flag(answer, PicoHeaders.CLOSED),
        Responses.ttl(answer, PicoHeaders.TTL),
        Responses.instant(answer, PicoHeaders.EXPIRES_AT));
  }

  @Override
  public List<PreparedAppend> prepare(String stream, List<Record> records, AppendOptions options) {
    Map<String, String> headers = new LinkedHashMap<>();
    options
        .producer()
        .ifPresent(
            stamp -> {
              headers.put(PicoHeaders.PRODUCER_ID, stamp.id().value());
              headers.put(PicoHeaders.PRODUCER_EPOCH, Long.toString(stamp.epoch()));
              headers.put(PicoHeaders.PRODUCER_SEQ, Long.toString(stamp.seq()));
            });
    options.matchSeq().ifPresent(seq -> headers.put(PicoHeaders.MATCH_SEQ, Long.toString(seq)));
    if (options.close()) {
      headers.put(PicoHeaders.CLOSED, "true");
    }
    HttpCall post = HttpCall.of("POST", endpoints.stream(stream), requestTimeout);
    if (records.isEmpty()) {
      if (!options.close()) {
        throw new IllegalArgumentException("an append needs records (or close(true))");
      }
      return List.of(new PreparedAppend(post.withHeaders(headers), 0));
    }
    headers.put("Content-Type", PicoMediaTypes.BATCH_BINARY);
    List<AppendBatch.Entry> entries = new ArrayList<>(records.size());
    for (Record record : records) {
      entries.add(AppendBatch.Entry.of(record.headers(), record.body()));
    }
    byte[] body = AppendBatch.encode(entries);
    return List.of(new PreparedAppend(post.withHeaders(headers).withBody(body), records.size()));
  }

  @Override
  public AppendResult send(PreparedAppend append) {
    HttpResponse<byte[]> response = call(append.call());
    HttpHeaders answer = response.headers();
    long next = Responses.requiredNumber(answer, PicoHeaders.NEXT_SEQ);
    if (response.statusCode() == 204) {
      // A duplicate: the server had this producer seq already; the records' own seqs are not in
      // the answer.
      return new AppendResult(next, next, 0, true);
    }
    return new AppendResult(
        Responses.number(answer, PicoHeaders.START_SEQ).orElse(next),
        next,
        Responses.number(answer, PicoHeaders.TIMESTAMP).orElse(0),
        false);
  }

  @Override
  public ReadAnswer read(String stream, ReadRequest request, Optional<String> cursor) {
    Map<String, String> query = new LinkedHashMap<>();
    query.put("seq", request.seq().isPresent() ? Long.toString(request.seq().getAsLong()) : "now");
    if (request.maxRecords() > 0) {
      query.put("count", Integer.toString(request.maxRecords()));
    }
    if (request.maxBytes() > 0) {
      query.put("bytes", Long.toString(request.maxBytes()));
    }
    query.put("format", "binary");
    if (request.longPoll()) {
      query.put("live", "long-poll");
      cursor.ifPresent(c -> query.put("cursor", c));
    }
    HttpCall get =
        HttpCall.of(
            "GET",
            endpoints.stream(stream, query),
            request.longPoll() ? liveTimeout : requestTimeout);
    return readAnswer(call(get));
  }

  private static ReadAnswer readAnswer(HttpResponse<byte[]> response) {
    HttpHeaders answer = response.headers();
    List<ReadRecord> records = new ArrayList<>();
    if (response.statusCode() == 200 && response.body().length > 0) {
      try {
        for (ReadBatch.Entry entry : ReadBatch.decode(response.body())) {
          records.add(
              new ReadRecord(entry.seq(), entry.timestampMillis(), entry.headers(), entry.body()));
        }
      } catch (DecodeException e) {
        throw Responses.malformed("the read's binary batch is malformed: " + e.getMessage());
      }
    }
    ReadResult result =
        new ReadResult(
            records,
            Responses.requiredNumber(answer, PicoHeaders.NEXT_SEQ),
            Responses.flag(answer, PicoHeaders.UP_TO_DATE),
            Responses.flag(answer, PicoHeaders.CLOSED));
    return new ReadAnswer(result, answer.firstValue(PicoHeaders.CURSOR));
  }

  @Override
  public ListPage list(ListRequest request) {
    Map<String, String> query = new LinkedHashMap<>();
    if (!request.prefix().isEmpty()) {
      query.put("prefix", Endpoints.name(request.prefix()));
    }
    if (request.limit() > 0) {
      query.put("limit", Integer.toString(request.limit()));
    }
    request.startAfter().ifPresent(name -> query.put("start_after", Endpoints.name(name)));
    return listPage(call(HttpCall.of("GET", endpoints.root(query), requestTimeout)).body());
  }

  private static ListPage listPage(byte[] body) {
    JsonNode json;
    try {
      json = ErrorAnswers.JSON.readTree(body);
    } catch (IOException e) {
      throw Responses.malformed("the stream list is not JSON: " + e.getMessage());
    }
    List<StreamInfo> streams = new ArrayList<>();
    for (JsonNode stream : json.path("streams")) {
      streams.add(
          new StreamInfo(
              stream.path("name").asText(),
              stream.path("content_type").asText(CreateOptions.DEFAULT_CONTENT_TYPE),
              stream.path("start_seq").asLong(),
              stream.path("next_seq").asLong(),
              stream.path("closed").asBoolean(),
              stream.path("ttl").isNumber()
                  ? Optional.of(Duration.ofSeconds(stream.path("ttl").asLong()))
                  : Optional.empty(),
              stream.path("expires_at").isTextual()
                  ? Responses.instant(stream.path("expires_at").asText())
                  : Optional.<Instant>empty()));
    }
    return new ListPage(streams, json.path("has_more").asBoolean());
  }

  @Override
  public void trim(String stream, long beforeSeq) {
    HttpCall post =
        HttpCall.of("POST", endpoints.stream(stream), requestTimeout)
            .withHeaders(Map.of(PicoHeaders.TRIM_SEQ, Long.toString(beforeSeq)));
    call(post);
  }

  @Override
  public AppendResult close(String stream) {
    return send(prepare(stream, List.of(), AppendOptions.defaults().close(true)).getFirst());
  }

  @Override
  public void delete(String stream) {
    call(HttpCall.of("DELETE", endpoints.stream(stream), requestTimeout));
  }

  @Override
  public HttpCall sse(String stream, long fromSeq, Optional<String> cursor) {
    return Dialect.sseCall(
        endpoints, stream, Map.entry("seq", Long.toString(fromSeq)), cursor, requestTimeout);
  }

  @Override
  public SseDecoder sseDecoder(String stream, long fromSeq, HttpHeaders responseHeaders) {
    return new PicoSseDecoder();
  }

  /** Record events carry one record each; control events say where the feed stands. */
  private static final class PicoSseDecoder implements SseDecoder {

    @Override
    public Optional<ReadResult> onEvent(SseEvent event) {
      JsonNode json;
      try {
        json = ErrorAnswers.JSON.readTree(event.data());
      } catch (IOException e) {
        throw Responses.malformed("an SSE event is not JSON: " + e.getMessage());
      }
      if (event.type().equals("control")) {
        return Optional.of(
            new ReadResult(
                List.of(),
                json.path("next_seq").asLong(),
                json.path("up_to_date").asBoolean() || json.path("closed").asBoolean(),
                json.path("closed").asBoolean()));
      }
      if (!event.type().equals("message")) {
        return Optional.empty();
      }
      ReadRecord record = record(json);
      return Optional.of(new ReadResult(List.of(record), record.seq() + 1, false, false));
    }

    @Override
    public Optional<String> cursor() {
      return Optional.empty();
    }
  }

  /** A record in the JSON format: {@code {seq, timestamp, headers, body | body_b64}}. */
  static ReadRecord record(JsonNode json) {
    Map<String, String> headers = new LinkedHashMap<>();
    json.path("headers")
        .fields()
        .forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
    byte[] body =
        json.has("body_b64")
            ? Base64.getDecoder().decode(json.path("body_b64").asText())
            : json.path("body").asText().getBytes(StandardCharsets.UTF_8);
    return new ReadRecord(
        json.path("seq").asLong(), json.path("timestamp").asLong(), headers, body);
  }
}
