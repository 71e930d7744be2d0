package io.picomq.frontend.pico;

import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.live.LiveOptions;
import java.util.OptionalLong;

/**
 * What a {@code GET /{stream}} asks for.
 *
 * @param from where to start: a seq, or empty for {@code now} (the tail at the moment of the
 *     request). For SSE, a {@code Last-Event-ID} (the last seq the client saw, or -1 for none)
 *     replaces the {@code seq} parameter: a browser's reconnect repeats the original URL and adds
 *     that header
 * @param count at most this many records
 * @param bytes at most this many body bytes, beyond a first record that is larger on its own
 * @param format how records are written
 * @param live how to wait at the tail
 * @param cursor the {@code cursor} the client echoed, or null
 */
record ReadQuery(
    OptionalLong from, int count, int bytes, ReadFormat format, Live live, String cursor) {

  /** How a read waits. */
  enum Live {
    /** Answer at once with what there is. */
    NONE,
    /** Park until a record arrives, the stream closes, or the timeout passes (then 204). */
    LONG_POLL,
    /** A Server-Sent Events response with an event per record, until recycled. */
    SSE
  }

  static ReadQuery parse(Exchange exchange, LiveOptions options) throws InvalidRequest {
    String liveValue = Params.query(exchange, "live");
    Live live =
        switch (liveValue == null ? "" : liveValue) {
          case "" -> Live.NONE;
          case "long-poll" -> Live.LONG_POLL;
          case "sse" -> Live.SSE;
          default ->
              throw new InvalidRequest("live is long-poll or sse, not \"" + liveValue + "\"");
        };
    ReadFormat format = ReadFormat.parse(Params.query(exchange, "format"));
    if (live == Live.SSE && format != ReadFormat.JSON) {
      throw new InvalidRequest("SSE carries each record as a JSON event: format is json");
    }
    OptionalLong from = seq(Params.query(exchange, "seq"));
    String lastEventId = Params.header(exchange, "Last-Event-ID");
    if (live == Live.SSE && lastEventId != null) {
      from =
          OptionalLong.of(
              lastEventId.equals("-1") ? 0 : Params.nonNegative(lastEventId, "Last-Event-ID") + 1);
    }
    int count =
        Params.within(
            Params.query(exchange, "count"), "count", 1, Params.MAX_COUNT, Params.DEFAULT_COUNT);
    int bytes =
        Params.within(
            Params.query(exchange, "bytes"),
            "bytes",
            1,
            Math.max(Params.MAX_READ_BYTES, options.maxChunkBytes()),
            options.maxChunkBytes());
    return new ReadQuery(from, count, bytes, format, live, Params.query(exchange, "cursor"));
  }

  private static OptionalLong seq(String value) throws InvalidRequest {
    if (value == null) {
      return OptionalLong.of(0);
    }
    if (value.equals("now")) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Params.nonNegative(value, "seq"));
  }
}
