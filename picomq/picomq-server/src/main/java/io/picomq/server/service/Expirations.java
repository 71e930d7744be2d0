package io.picomq.server.service;

import io.picomq.stream.Expiry;
import java.time.Instant;
import java.util.Optional;

/**
 * When a stream expires: deadlines from an {@link Expiry} and the last activity, and whether a
 * loaded stream is past its own. Pure arithmetic plus reads under the stream's lock; the sweep that
 * acts on it is {@link LoadedStreams#takeDue} with {@link EngineStreamService#expireDue()}.
 *
 * <p>Why a restart never expires a stream early: the sliding TTL's activity is tracked in memory
 * and written through with the entry's other changes; a stream loaded after a restart starts its
 * window at the later of the stored activity and the load time ({@link LoadedStreams}).
 */
final class Expirations {
  private Expirations() {}

  /**
   * When a stream with this expiry and last activity expires. A TTL's deadline saturates at the
   * largest millisecond count, so no stored TTL can overflow (an older node stored any value up to
   * 10^18 seconds): such a stream never expires.
   */
  static Optional<Instant> expiresAt(Expiry expiry, long activityMillis) {
    return switch (expiry) {
      case Expiry.Never never -> Optional.empty();
      case Expiry.Ttl ttl ->
          Optional.of(Instant.ofEpochMilli(plusSecondsSaturated(activityMillis, ttl.seconds())));
      case Expiry.At at -> Optional.of(at.instant());
    };
  }

  /** {@code millis + seconds * 1000}, or {@link Long#MAX_VALUE} past it; {@code seconds >= 0}. */
  static long plusSecondsSaturated(long millis, long seconds) {
    long add = seconds > Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : seconds * 1000;
    return millis > 0 && add > Long.MAX_VALUE - millis ? Long.MAX_VALUE : millis + add;
  }

  static boolean expired(Expiry expiry, long activityMillis, long nowMillis) {
    return expiresAt(expiry, activityMillis)
        .map(at -> !Instant.ofEpochMilli(nowMillis).isBefore(at))
        .orElse(false);
  }

  /** Under the stream's lock: its own deadline passed. */
  static boolean expired(LiveStream stream, long nowMillis) {
    return expired(stream.registration.expiry(), stream.activityMillis, nowMillis);
  }

  /** Takes the stream's lock: it is live (not removed, not soft-deleted) and past its deadline. */
  static boolean expiredNow(LiveStream stream, long nowMillis) {
    stream.lock.lock();
    try {
      return !stream.removed && !stream.registration.softDeleted() && expired(stream, nowMillis);
    } finally {
      stream.lock.unlock();
    }
  }

  /**
   * Takes the stream's lock: the deadline to queue it at for the sweep, or empty when it cannot
   * expire (no expiry, soft-deleted: a soft-deleted name stays until its forks go) or is gone.
   */
  static Optional<Long> sweepDeadlineMillis(LiveStream stream) {
    stream.lock.lock();
    try {
      if (stream.removed || stream.registration.softDeleted()) {
        return Optional.empty();
      }
      return expiresAt(stream.registration.expiry(), stream.activityMillis)
          .map(Expirations::epochMillisSaturated);
    } finally {
      stream.lock.unlock();
    }
  }

  private static long epochMillisSaturated(Instant instant) {
    try {
      return instant.toEpochMilli();
    } catch (ArithmeticException e) {
      return instant.isBefore(Instant.EPOCH) ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
