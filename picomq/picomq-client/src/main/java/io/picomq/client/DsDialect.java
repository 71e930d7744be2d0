package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Durable Streams protocol: streams at {@code BASE/v1/stream/{stream}}, offsets translated to
 * seqs by {@link DsOffsets}.
 *
 * <p>The protocol has no record headers, timestamps or conditional appends, and no listing or
 * trimming: those fail with {@link UnsupportedByProtocolException} before anything is sent. Each
 * append of a non-JSON stream is one record, so several records are several requests (not atomic
 * together); a JSON stream takes them as one array (atomic). Reads of a non-JSON stream answer the
 * bodies run together: one {@link ReadRecord} per answer. Whether a stream is JSON is learnt from
 * its content type, cached per stream name.
 */
final class DsDialect implements Dialect {

  private static final String NEXT_OFFSET = "Stream-Next-Offset";
  private static final String UP_TO_DATE = "Stream-Up-To-Date";
  private static final String CURSOR = "Stream-Cursor";
  private static final String CLOSED = "Stream-Closed";
  private static final String TTL = "Stream-TTL";
  private static final String EXPIRES_AT = "Stream-Expires-At";
  private static final String SSE_DATA_ENCODING = "Stream-SSE-Data-Encoding";

  private final HttpTransport transport;
  private final Endpoints endpoints;
  private final Duration requestTimeout;
  private final Duration liveTimeout;

  /** Content types by canonical stream name: fixed at creation, so safe to remember. */
  private final Map<String, String> contentTypes = new ConcurrentHashMap<>();

  DsDialect(
      HttpTransport transport, Endpoints endpoints, Duration requestTimeout, Duration liveTimeout) {
    this.transport = transport;
    this.endpoints = endpoints;
    this.requestTimeout = requestTimeout;
    this.liveTimeout = liveTimeout;
  }

  @Override
  public Protocol protocol() {
    return Protocol.DURABLE_STREAMS;
  }

  private HttpResponse<byte[]> call(String stream, HttpCall call) {
    HttpResponse<byte[]> response = transport.send(call);
    int status = response.statusCode();
    if (status == 404 || status == 410 || status == 409) {
      // The stream may have been deleted and created again with another type.
      contentTypes.remove(Endpoints.name(stream));
    }
    return Responses.success(Protocol.DURABLE_STREAMS, response);
  }

  static boolean isJson(String contentType) {
    int semicolon = contentType.indexOf(';');
    String media = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip();
    return media.toLowerCase(Locale.ROOT).equals("application/json");
  }

  @Override
  public StreamInfo create(String stream, CreateOptions options) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", options.contentType());
    options.ttl().ifPresent(ttl -> headers.put(TTL, Long.toString(ttl.toSeconds())));
    options.expiresAt().ifPresent(at -> headers.put(EXPIRES_AT, at.toString()));
    if (options.closed()) {
      headers.put(CLOSED, "true");
    }
    HttpCall put =
        HttpCall.of("PUT", endpoints.stream(stream), requestTimeout).withHeaders(headers);
    HttpHeaders answer = call(stream, put).headers();
    String contentType = answer.firstValue("Content-Type").orElse(options.contentType());
    contentTypes.put(Endpoints.name(stream), contentType);
    return new StreamInfo(
        Endpoints.name(stream),
        contentType,
        0,
        nextSeq(answer),
        Responses.flag(answer, CLOSED),
        options.ttl(),
        options.expiresAt());
  }

  @Override
  public StreamInfo head(String stream) {
    HttpHeaders answer =
        call(stream, HttpCall.of("HEAD", endpoints.stream(stream), requestTimeout)).headers();
    String contentType =
        answer.firstValue("Content-Type").orElse(CreateOptions.DEFAULT_CONTENT_TYPE);
    contentTypes.put(Endpoints.name(stream), contentType);
    return new StreamInfo(
        Endpoints.name(stream),
        contentType,
        0,
        nextSeq(answer),
        Responses.flag(answer, CLOSED),
        Responses.ttl(answer, TTL),
        Responses.instant(answer, EXPIRES_AT));
  }

  private static long nextSeq(HttpHeaders answer) {
    String offset =
        answer
            .firstValue(NEXT_OFFSET)
            .orElseThrow(() -> Responses.malformed("the answer lacks " + NEXT_OFFSET));
    try {
      return DsOffsets.parse(offset);
    } catch (IllegalArgumentException e) {
      throw Responses.malformed(e.getMessage());
    }
  }

  /** The stream's content type, from the cache or a HEAD. */
  String contentType(String stream) {
    String known = contentTypes.get(Endpoints.name(stream));
    return known != null ? known : head(stream).contentType();
  }

  @Override
  public List<PreparedAppend> prepare(String stream, List<Record> records, AppendOptions options) {
    if (options.matchSeq().isPresent()) {
      throw new UnsupportedByProtocolException(protocol(), "a conditional append (matchSeq)");
    }
    for (Record record : records) {
      if (!record.headers().isEmpty()) {
        throw new UnsupportedByProtocolException(protocol(), "record headers");
      }
    }
    HttpCall post = HttpCall.of("POST", endpoints.stream(stream), requestTimeout);
    if (records.isEmpty()) {
      if (!options.close()) {
        throw new IllegalArgumentException("an append needs records (or close(true))");
      }
      Map<String, String> headers = producerHeaders(options.producer(), 0);
      headers.put(CLOSED, "true");
      return List.of(new PreparedAppend(post.withHeaders(headers), 0));
    }
    String contentType = contentType(stream);
    List<PreparedAppend> appends = new ArrayList<>();
    if (isJson(contentType)) {
      Map<String, String> headers = producerHeaders(options.producer(), 0);
      headers.put("Content-Type", contentType);
      if (options.close()) {
        headers.put(CLOSED, "true");
      }
      byte[] body = JsonArrays.join(records.stream().map(Record::body).toList());
      appends.add(new PreparedAppend(post.withHeaders(headers).withBody(body), records.size()));
      return appends;
    }
    for (int i = 0; i < records.size(); i++) {
      Map<String, String> headers = producerHeaders(options.producer(), i);
      headers.put("Content-Type", contentType);
      if (options.close() && i == records.size() - 1) {
        headers.put(CLOSED, "true");
      }
      appends.add(new PreparedAppend(post.withHeaders(headers).withBody(records.get(i).body()), 1));
    }
    return appends;
  }

  private static Map<String, String> producerHeaders(Optional<ProducerStamp> producer, int skip) {
    Map<String, String> headers = new LinkedHashMap<>();
    producer.ifPresent(
        stamp -> {
          headers.put("Producer-Id", stamp.id().value());
          headers.put("Producer-Epoch", Long.toString(stamp.epoch()));
          headers.put("Producer-Seq", Long.toString(stamp.seq() + skip));
        });
    return headers;
  }

  @Override
  public AppendResult send(PreparedAppend append) {
    boolean producer = append.call().headers().containsKey("Producer-Id");
    HttpResponse<byte[]> response = call(streamOf(append.call()), append.call());
    long next = nextSeq(response.headers());
    if (producer && append.recordCount() > 0 && response.statusCode() == 204) {
      return new AppendResult(next, next, 0, true);
    }
    return new AppendResult(next - append.recordCount(), next, 0, false);
  }

  /** The stream a call is about (for the content-type cache). */
  private static String streamOf(HttpCall call) {
    String path = call.uri().getPath();
    int at = path.indexOf(Endpoints.DS_BASE_PATH + "/");
    return at < 0 ? path : path.substring(at + Endpoints.DS_BASE_PATH.length());
  }

  @Override
  public ReadAnswer read(String stream, ReadRequest request, Optional<String> cursor) {
    if (request.isFromTail() && request.longPoll()) {
      // A long-poll from "now" answers records without saying which seq they start at; start
      // from the tail's actual seq instead.
      long tail = head(stream).nextSeq();
      return read(
          stream,
          new ReadRequest(OptionalLong.of(tail), request.maxRecords(), request.maxBytes(), true),
          cursor);
    }
    Map<String, String> query = new LinkedHashMap<>();
    query.put(
        "offset",
        request.seq().isPresent() ? DsOffsets.format(request.seq().getAsLong()) : DsOffsets.NOW);
    if (request.longPoll()) {
      query.put("live", "long-poll");
      cursor.ifPresent(c -> query.put("cursor", c));
    }
    HttpCall get =
        HttpCall.of(
            "GET",
            endpoints.stream(stream, query),
            request.longPoll() ? liveTimeout : requestTimeout);
    long from = request.seq().orElse(0);
    return readAnswer(call(stream, get), from, request);
  }

  private static ReadAnswer readAnswer(HttpResponse<byte[]> response, long from, ReadRequest req) {
    HttpHeaders answer = response.headers();
    long next = nextSeq(answer);
    boolean upToDate = Responses.flag(answer, UP_TO_DATE);
    boolean closed = Responses.flag(answer, CLOSED);
    List<ReadRecord> records = new ArrayList<>();
    if (response.statusCode() == 200) {
      String contentType = answer.firstValue("Content-Type").orElse("");
      records.addAll(records(response.body(), isJson(contentType), from, next));
    }
    if (isJsonAnswer(answer) && records.size() > 0) {
      int keep = kept(records, req);
      if (keep < records.size()) {
        records = new ArrayList<>(records.subList(0, keep));
        next = records.getLast().seq() + 1;
        upToDate = false;
        closed = false;
      }
    }
    return new ReadAnswer(
        new ReadResult(records, next, upToDate, closed), answer.firstValue(CURSOR));
  }

  private static boolean isJsonAnswer(HttpHeaders answer) {
    return isJson(answer.firstValue("Content-Type").orElse(""));
  }

  /** How many leading records fit the request's client-side caps (at least one). */
  static int kept(List<ReadRecord> records, ReadRequest request) {
    int keep = records.size();
    if (request.maxRecords() > 0) {
      keep = Math.min(keep, request.maxRecords());
    }
    if (request.maxBytes() > 0) {
      long bytes = 0;
      for (int i = 0; i < keep; i++) {
        bytes += records.get(i).body().length;
        if (bytes > request.maxBytes()) {
          keep = Math.max(1, i);
          break;
        }
      }
    }
    return keep;
  }

  /**
   * The records of a body: one per message of a JSON stream, numbered back from {@code next}; the
   * whole body as one record at {@code from} otherwise.
   */
  static List<ReadRecord> records(byte[] body, boolean json, long from, long next) {
    if (json) {
      List<byte[]> messages;
      try {
        messages = JsonArrays.split(body);
      } catch (IllegalArgumentException e) {
        throw Responses.malformed("a JSON stream answered something else: " + e.getMessage());
      }
      List<ReadRecord> records = new ArrayList<>(messages.size());
      long first = next - messages.size();
      for (int i = 0; i < messages.size(); i++) {
        records.add(new ReadRecord(first + i, 0, Map.of(), messages.get(i)));
      }
      return records;
    }
    return body.length == 0 ? List.of() : List.of(new ReadRecord(from, 0, Map.of(), body));
  }

  @Override
  public ListPage list(ListRequest request) {
    throw new UnsupportedByProtocolException(protocol(), "listing streams");
  }

  @Override
  public void trim(String stream, long beforeSeq) {
    throw new UnsupportedByProtocolException(protocol(), "trimming a stream");
  }

  @Override
  public AppendResult close(String stream) {
    HttpCall post =
        HttpCall.of("POST", endpoints.stream(stream), requestTimeout)
            .withHeaders(Map.of(CLOSED, "true"));
    long next = nextSeq(call(stream, post).headers());
    return new AppendResult(next, next, 0, false);
  }

  @Override
  public void delete(String stream) {
    call(stream, HttpCall.of("DELETE", endpoints.stream(stream), requestTimeout));
    contentTypes.remove(Endpoints.name(stream));
  }

  @Override
  public HttpCall sse(String stream, long fromSeq, Optional<String> cursor) {
    return Dialect.sseCall(
        endpoints, stream, Map.entry("offset", DsOffsets.format(fromSeq)), cursor, requestTimeout);
  }

  @Override
  public SseDecoder sseDecoder(String stream, long fromSeq, HttpHeaders responseHeaders) {
    String contentType = contentType(stream);
    boolean base64 =
        responseHeaders
            .firstValue(SSE_DATA_ENCODING)
            .map(v -> v.strip().equalsIgnoreCase("base64"))
            .orElse(false);
    return new DsSseDecoder(isJson(contentType), base64, fromSeq);
  }

  /**
   * A feed is {@code data} events (a chunk: a JSON array, text, or base64) each followed by a
   * {@code control} event with the offset after it; a result is complete at the control event.
   */
  static final class DsSseDecoder implements SseDecoder {
    private final boolean json;
    private final boolean base64;
    private final List<String> pending = new ArrayList<>();
    private long position;
    private Optional<String> cursor = Optional.empty();

    DsSseDecoder(boolean json, boolean base64, long fromSeq) {
      this.json = json;
      this.base64 = base64;
      this.position = fromSeq;
    }

    @Override
    public Optional<ReadResult> onEvent(SseEvent event) {
      if (event.type().equals("data")) {
        pending.add(event.data());
        return Optional.empty();
      }
      if (!event.type().equals("control")) {
        return Optional.empty();
      }
      JsonNode control;
      try {
        control = ErrorAnswers.JSON.readTree(event.data());
      } catch (IOException e) {
        throw Responses.malformed("a control event is not JSON: " + e.getMessage());
      }
      long next = DsOffsets.parse(control.path("streamNextOffset").asText());
      if (control.hasNonNull("streamCursor")) {
        cursor = Optional.of(control.path("streamCursor").asText());
      }
      List<ReadRecord> records = new ArrayList<>();
      long from = position;
      for (String payload : pending) {
        byte[] bytes =
            base64
                ? Base64.getMimeDecoder().decode(payload)
                : payload.getBytes(StandardCharsets.UTF_8);
        records.addAll(records(bytes, json, from, json ? from + count(bytes) : next));
        from = records.isEmpty() ? from : records.getLast().seq() + 1;
      }
      pending.clear();
      position = next;
      boolean closed = control.path("streamClosed").asBoolean();
      boolean upToDate = control.path("upToDate").asBoolean() || closed;
      return Optional.of(new ReadResult(records, next, upToDate, closed));
    }

    private static int count(byte[] bytes) {
      return JsonArrays.split(bytes).size();
    }

    @Override
    public Optional<String> cursor() {
      return cursor;
    }
  }
}
