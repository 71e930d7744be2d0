package io.picomq.stream;

import java.time.Instant;
import java.util.Objects;

/**
 * When a stream stops existing on its own. An expired stream behaves as deleted: gone at once if
 * nothing depends on it, soft-deleted while forks still read its records (see {@link
 * StreamService#delete}).
 */
public sealed interface Expiry {

  /**
   * The longest TTL, and the furthest ahead an expiry may lie, that the frontends accept: 100 years
   * of 365 days, in seconds. Far beyond any real use, and far inside what the host's time
   * arithmetic represents (which saturates anyway, so a larger value stored by an older node still
   * works: it never expires).
   */
  long MAX_SECONDS = 100L * 365 * 24 * 60 * 60;

  /** Lives until deleted. */
  record Never() implements Expiry {}

  /**
   * A sliding window: the stream expires {@code seconds} after its last activity. Activity is
   * creation, every append (close-only included) and every read; a metadata lookup ({@link
   * StreamService#head}, {@link StreamService#list}) is not activity.
   */
  record Ttl(long seconds) implements Expiry {
    public Ttl {
      if (seconds < 0) {
        throw new IllegalArgumentException("TTL seconds must not be negative: " + seconds);
      }
    }
  }

  /** Expires at a fixed instant; activity does not move it. */
  record At(Instant instant) implements Expiry {
    public At {
      Objects.requireNonNull(instant, "instant");
    }
  }

  Expiry NEVER = new Never();
}
