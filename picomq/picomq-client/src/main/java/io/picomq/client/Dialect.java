package io.picomq.client;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One wire protocol: how each operation becomes requests and how answers become results. The {@link
 * PicoClient}, {@link Consumer} and {@link ProducerSession} are written against this, so they
 * behave the same under both protocols. Implementations are thread-safe.
 */
sealed interface Dialect permits PicoDialect, DsDialect {

  Protocol protocol();

  StreamInfo create(String stream, CreateOptions options);

  StreamInfo head(String stream);

  /**
   * The requests that append {@code records}, in the order they must be sent. One under the Pico
   * protocol (a batch is atomic); under Durable Streams one for a JSON stream (an array), one per
   * record otherwise (each taking the next producer seq when {@code options} has a stamp).
   *
   * @throws UnsupportedByProtocolException for options the protocol lacks
   */
  List<PreparedAppend> prepare(String stream, List<Record> records, AppendOptions options);

  /** Sends one prepared append; may be called again with the same value to retry it. */
  AppendResult send(PreparedAppend append);

  /** One read; {@code cursor} is the previous live answer's cursor. */
  ReadAnswer read(String stream, ReadRequest request, Optional<String> cursor);

  ListPage list(ListRequest request);

  void trim(String stream, long beforeSeq);

  AppendResult close(String stream);

  void delete(String stream);

  /** The request of an SSE feed from {@code fromSeq}. */
  HttpCall sse(String stream, long fromSeq, Optional<String> cursor);

  /**
   * An SSE request in either protocol: they differ only in the parameter naming the position
   * ({@code seq} or {@code offset}).
   */
  static HttpCall sseCall(
      Endpoints endpoints,
      String stream,
      Map.Entry<String, String> position,
      Optional<String> cursor,
      Duration timeout) {
    Map<String, String> query = new LinkedHashMap<>();
    query.put(position.getKey(), position.getValue());
    query.put("live", "sse");
    cursor.ifPresent(c -> query.put("cursor", c));
    return HttpCall.of("GET", endpoints.stream(stream, query), timeout)
        .withHeaders(Map.of("Accept", "text/event-stream"));
  }

  /** Decodes the events of an SSE feed on {@code stream} that started at {@code fromSeq}. */
  SseDecoder sseDecoder(String stream, long fromSeq, HttpHeaders responseHeaders);

  /**
   * One append request, ready to be sent and resent byte for byte.
   *
   * @param recordCount how many records it appends (0 for a close only)
   */
  record PreparedAppend(HttpCall call, int recordCount) {}

  /** A read's result and, for live reads, the cursor to echo next time. */
  record ReadAnswer(ReadResult result, Optional<String> cursor) {}

  /** Turns an SSE feed's events into results. Owned by the one thread reading the feed. */
  interface SseDecoder {

    /** The result an event completes, if any. */
    Optional<ReadResult> onEvent(SseEvent event);

    /** The last cursor the feed gave, to echo when reconnecting. */
    Optional<String> cursor();
  }
}
