package io.picomq.frontend.ds;

import java.time.Instant;
import java.time.InstantSource;
import java.util.random.RandomGenerator;

/**
 * Cursors for live responses (protocol section 8.1): the number of 20-second intervals since
 * 2024-10-09T00:00:00Z. When a client echoes a cursor at or past the current interval, the answer
 * moves strictly past it by a random 1 to 3600 seconds' worth of intervals, so a cache key never
 * repeats and a CDN cannot serve the same empty response forever.
 */
final class Cursors {

  private static final Instant EPOCH = Instant.parse("2024-10-09T00:00:00Z");
  private static final long INTERVAL_SECONDS = 20;
  private static final int MAX_JITTER_SECONDS = 3600;

  private final InstantSource clock;
  private final RandomGenerator random;

  Cursors(InstantSource clock, RandomGenerator random) {
    this.clock = clock;
    this.random = random;
  }

  /** The cursor for a response, given what the client sent (null or unparsable for none). */
  String next(String clientCursor) {
    long current = (clock.instant().getEpochSecond() - EPOCH.getEpochSecond()) / INTERVAL_SECONDS;
    long client = parse(clientCursor);
    if (client < current) {
      return Long.toString(current);
    }
    long jitterSeconds = 1 + random.nextInt(MAX_JITTER_SECONDS);
    long jitterIntervals = Math.max(1, (jitterSeconds + INTERVAL_SECONDS - 1) / INTERVAL_SECONDS);
    return Long.toString(client + jitterIntervals);
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
