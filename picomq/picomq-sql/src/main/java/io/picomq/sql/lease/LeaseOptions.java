package io.picomq.sql.lease;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

/**
 * Timing of a {@link MaintenanceLease}.
 *
 * @param ttl how long a written expiry lies ahead of the holder's clock
 * @param renewInterval how often the holder renews and a follower tries to take over
 * @param safetyMargin the holder stops claiming the lease this long before the expiry it wrote; it
 *     must exceed the clock skew between nodes (see {@link MaintenanceLease})
 * @param checkInterval how often the control thread checks the clock against the deadline
 * @param threadFactory makes the control thread and the thread that runs the SQL
 */
public record LeaseOptions(
    Duration ttl,
    Duration renewInterval,
    Duration safetyMargin,
    Duration checkInterval,
    ThreadFactory threadFactory) {

  public LeaseOptions {
    requirePositive("ttl", ttl);
    requirePositive("renewInterval", renewInterval);
    requirePositive("safetyMargin", safetyMargin);
    requirePositive("checkInterval", checkInterval);
    if (renewInterval.plus(safetyMargin).compareTo(ttl) >= 0) {
      throw new IllegalArgumentException(
          "renewInterval "
              + renewInterval
              + " plus safetyMargin "
              + safetyMargin
              + " must be less than ttl "
              + ttl
              + ", or the holder demotes itself between two renewals");
    }
  }

  private static void requirePositive(String option, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(option + " " + value + " is not positive");
    }
  }

  /**
   * The defaults: TTL 10 s, renew every 2.5 s, a 2.5 s safety margin (the holder gives up at 7.5 s
   * without a confirmed renewal, after two failed attempts), checks every 100 ms, platform daemon
   * threads.
   */
  public static LeaseOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A copy of these options in a builder; each setting may be changed once more. */
  public Builder newBuilder() {
    Builder builder = new Builder();
    builder.ttl = ttl;
    builder.renewInterval = renewInterval;
    builder.safetyMargin = safetyMargin;
    builder.checkInterval = checkInterval;
    builder.threadFactory = threadFactory;
    return builder;
  }

  /** Builds {@link LeaseOptions}; setting one option twice is a mistake and is rejected. */
  public static final class Builder {
    private Duration ttl = Duration.ofSeconds(10);
    private Duration renewInterval = Duration.ofMillis(2500);
    private Duration safetyMargin = Duration.ofMillis(2500);
    private Duration checkInterval = Duration.ofMillis(100);
    private ThreadFactory threadFactory = Thread.ofPlatform().daemon().factory();
    private final Set<String> set = new HashSet<>();

    private Builder() {}

    private void once(String option) {
      if (!set.add(option)) {
        throw new IllegalStateException(option + " was already set");
      }
    }

    public Builder ttl(Duration ttl) {
      once("ttl");
      this.ttl = ttl;
      return this;
    }

    public Builder renewInterval(Duration renewInterval) {
      once("renewInterval");
      this.renewInterval = renewInterval;
      return this;
    }

    public Builder safetyMargin(Duration safetyMargin) {
      once("safetyMargin");
      this.safetyMargin = safetyMargin;
      return this;
    }

    public Builder checkInterval(Duration checkInterval) {
      once("checkInterval");
      this.checkInterval = checkInterval;
      return this;
    }

    public Builder threadFactory(ThreadFactory threadFactory) {
      once("threadFactory");
      this.threadFactory = threadFactory;
      return this;
    }

    public LeaseOptions build() {
      return new LeaseOptions(ttl, renewInterval, safetyMargin, checkInterval, threadFactory);
    }
  }
}
