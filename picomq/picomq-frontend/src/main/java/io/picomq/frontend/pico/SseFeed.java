package io.picomq.frontend.pico;

import static io.netty.handler.codec.http.HttpResponseStatus.NO_CONTENT;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.live.EventCache;
import io.picomq.frontend.live.SseLoop;
import io.picomq.frontend.live.SseWire;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.StreamRecord;
import io.picomq.stream.StreamService;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * What one Server-Sent Events response says; {@link SseLoop} paces it. Each record is an event
 * whose {@code id} is its seq and whose {@code data} is the record as JSON ({@code {seq, timestamp,
 * headers, body | body_b64}}), so a browser's {@code EventSource} resumes after a reconnect with
 * {@code Last-Event-ID}. Control events ({@code event: control}) say {@code {"next_seq": n,
 * "up_to_date": true}} on reaching the tail and {@code {"next_seq": n, "closed": true}} once a
 * sealed stream is fully delivered, after which the response ends. Their {@code id} is {@code n -
 * 1}, the last seq delivered, so a reconnect continues at the tail. An idle stream gets a comment
 * every long-poll timeout (to keep proxies from timing out).
 *
 * <p>A request at the end of a sealed stream gets {@code 204} with {@code Pico-Closed} and no
 * events: that is what makes an {@code EventSource} stop reconnecting.
 *
 * <p>Threading: the loop calls the {@link SseWire} methods one step at a time, so {@code
 * toldUpToDate} needs no lock.
 */
final class SseFeed implements SseWire {

  private static final byte[] KEEP_ALIVE = ":\n\n".getBytes(StandardCharsets.UTF_8);

  private final String name;
  private final StreamService service;
  private final ReadQuery query;
  private final EventCache shared;

  // Owned by the running step.
  private boolean toldUpToDate;

  SseFeed(String name, StreamService service, ReadQuery query, EventCache shared) {
    this.name = name;
    this.service = service;
    this.query = query;
    this.shared = shared;
  }

  /**
   * Answers with the first batch, already read (a missing stream was answered before); {@code loop}
   * paces this feed from there.
   */
  void start(Exchange exchange, ReadOutcome.Batch first, SseLoop loop) {
    if (first.records().isEmpty() && first.endOfStream()) {
      exchange.respond(NO_CONTENT, Reads.positionHeaders(first), Answers.EMPTY);
      return;
    }
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
    headers.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    // Tells nginx-style proxies not to buffer the stream.
    headers.set("X-Accel-Buffering", "no");
    loop.start(headers, first);
  }

  @Override
  public ReadOutcome read(long seq) {
    // Deleted (or expired) under the reader ends the response: the reconnect learns why (404).
    return Reads.readFrom(service, name, seq, query);
  }

  @Override
  public byte[] events(ReadOutcome.Batch batch) {
    ByteArrayOutputStream events = new ByteArrayOutputStream();
    for (StreamRecord record : batch.records()) {
      events.writeBytes(
          shared.get(
              batch.stream().streamId(),
              record.seq(),
              record.seq() + 1,
              () -> recordEvent(record)));
    }
    if (batch.endOfStream()) {
      events.writeBytes(control(batch.nextSeq(), "\"closed\":true"));
    } else if (batch.upToDate() && (!batch.records().isEmpty() || !toldUpToDate)) {
      events.writeBytes(control(batch.nextSeq(), "\"up_to_date\":true"));
      toldUpToDate = true;
    }
    return events.toByteArray();
  }

  /** A comment line keeps intermediaries from closing on us. */
  @Override
  public byte[] keepAlive(long nextSeq) {
    return KEEP_ALIVE;
  }

  private static byte[] recordEvent(StreamRecord record) {
    byte[] json =
        Json.write(
            generator ->
                Json.writeRecord(
                    generator,
                    record.seq(),
                    record.timestampMillis(),
                    record.headers(),
                    record.body()));
    // JSON text has no raw line breaks (they are escaped in strings), so one data line suffices.
    return event("id: " + record.seq() + "\ndata: ", json);
  }

  private static byte[] control(long nextSeq, String field) {
    byte[] json = ("{\"next_seq\":" + nextSeq + "," + field + "}").getBytes(StandardCharsets.UTF_8);
    return event("event: control\nid: " + (nextSeq - 1) + "\ndata: ", json);
  }

  private static byte[] event(String prefix, byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(prefix.length() + data.length + 2);
    out.writeBytes(prefix.getBytes(StandardCharsets.UTF_8));
    out.writeBytes(data);
    out.writeBytes(new byte[] {'\n', '\n'});
    return out.toByteArray();
  }
}
