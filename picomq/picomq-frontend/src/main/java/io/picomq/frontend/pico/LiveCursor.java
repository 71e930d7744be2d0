package io.picomq.frontend.pico;

import java.time.InstantSource;

/**
 * {@code Pico-Cursor} values for live reads. A long-poll that comes back empty is asked again with
 * the same seq; a cache in front of the server (a CDN collapsing identical requests) must not
 * answer the new request from the old one. So every live answer carries a cursor, the client echoes
 * it as {@code cursor=}, and the next answer's cursor is strictly greater: the number of 20-second
 * intervals since the unix epoch, or one past the client's if that is not already behind. The
 * request URL therefore changes at least once per interval and whenever a client repeats itself.
 */
final class LiveCursor {

  private static final long INTERVAL_SECONDS = 20;

  private final InstantSource clock;

  LiveCursor(InstantSource clock) {
    this.clock = clock;
  }

  /** The cursor for an answer, given what the client sent (null or not a number: none). */
  String next(String clientCursor) {
    long current = clock.instant().getEpochSecond() / INTERVAL_SECONDS;
    return Long.toString(Math.max(current, parse(clientCursor) + 1));
  }

  private static long parse(String cursor) {
    if (cursor == null || cursor.isEmpty() || cursor.length() > 18) {
      return -1;
    }
    for (int i = 0; i < cursor.length(); i++) {
      if (cursor.charAt(i) < '0' || cursor.charAt(i) > '9') {
        return -1;
      }
    }
    return Long.parseLong(cursor);
  }
}
