package io.picomq.frontend.ds;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.live.EventCache;
import io.picomq.frontend.live.LiveOptions;
import io.picomq.frontend.live.SseLoop;
import io.picomq.frontend.live.SseWire;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.StreamService;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * What one SSE response says (protocol section 5.7); {@link SseLoop} paces it: catch-up data, then
 * live data as it arrives, each {@code data} event followed by a {@code control} event with the
 * next offset; a final control event with {@code streamClosed} once a closed stream is fully
 * delivered. An idle connection gets a control event with a fresh cursor every long-poll timeout.
 *
 * <p>A data event depends only on the records it carries, so it comes from the node's {@link
 * EventCache}: readers woken by one append share one encoding. Control events carry each reader's
 * cursor and are made per response.
 *
 * <p>Threading: the loop calls the {@link SseWire} methods one step at a time, so the mutable
 * fields need no lock.
 */
final class SseSession implements SseWire {

  private static final int MAX_RECORDS_PER_EVENT = 10_000;

  private final String name;
  private final StreamService service;
  private final LiveOptions options;
  private final Cursors cursors;
  private final EventCache dataEvents;

  /** The request's {@code cursor}, null when it gave none; decides the first cursor sent. */
  private final String clientCursor;

  // Owned by the step that is running.
  private long lastCursor = -1;
  private boolean base64;
  private boolean sentUpToDate;

  SseSession(
      String name,
      StreamService service,
      LiveOptions options,
      Cursors cursors,
      EventCache dataEvents,
      String clientCursor) {
    this.name = name;
    this.service = service;
    this.options = options;
    this.cursors = cursors;
    this.dataEvents = dataEvents;
    this.clientCursor = clientCursor;
  }

  /**
   * Answers the request with the event stream, starting with {@code batch} (the read {@link Reads}
   * made at the request's offset); {@code loop} paces this session from there.
   */
  void start(ReadOutcome.Batch batch, SseLoop loop) {
    base64 = !Body.sseAsText(batch.stream().contentType());
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
    headers.set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
    if (base64) {
      headers.set(DsHeaders.SSE_DATA_ENCODING, "base64");
    }
    loop.start(headers, batch);
  }

  @Override
  public ReadOutcome read(long seq) {
    return service
        .read(name, new ReadWindow(seq, MAX_RECORDS_PER_EVENT, options.maxChunkBytes()))
        .join();
  }

  @Override
  public byte[] events(ReadOutcome.Batch batch) {
    String next = OffsetToken.format(batch.nextSeq());
    if (!batch.records().isEmpty()) {
      byte[] control =
          batch.endOfStream()
              ? SseEvents.closed(next)
              : SseEvents.control(next, nextCursor(), batch.upToDate());
      sentUpToDate = batch.upToDate();
      return concat(dataEvent(batch), control);
    } else if (batch.endOfStream()) {
      return SseEvents.closed(next);
    } else if (!sentUpToDate) {
      sentUpToDate = true;
      return SseEvents.control(next, nextCursor(), true);
    }
    return new byte[0];
  }

  /** A control event with a fresh cursor: nothing happened for a while. */
  @Override
  public byte[] keepAlive(long nextSeq) {
    return SseEvents.control(OffsetToken.format(nextSeq), nextCursor(), true);
  }

  /**
   * The client's cursor decides the first one (moved past it if needed); later ones follow the
   * clock but never go backwards within the session.
   */
  private String nextCursor() {
    long next = Long.parseLong(cursors.next(lastCursor < 0 ? clientCursor : null));
    lastCursor = Math.max(lastCursor, next);
    return Long.toString(lastCursor);
  }

  /** One data event: JSON streams as an array, text as is, anything else in base64. */
  private byte[] dataEvent(ReadOutcome.Batch batch) {
    return dataEvents.get(
        batch.stream().streamId(),
        batch.records().getFirst().seq(),
        batch.nextSeq(),
        () -> SseEvents.data(payload(batch)));
  }

  private String payload(ReadOutcome.Batch batch) {
    byte[] bytes = Body.of(batch.stream().contentType()).render(batch.records());
    if (base64) {
      return Base64.getEncoder().encodeToString(bytes);
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[] first, byte[] second) {
    byte[] both = new byte[first.length + second.length];
    System.arraycopy(first, 0, both, 0, first.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    return both;
  }
}
