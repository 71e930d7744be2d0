package io.picomq.stream.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that moves only when a test moves it. Safe to read from any thread. */
public final class MutableClock implements InstantSource {

  private final AtomicReference<Instant> now;

  public MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  public void advance(Duration step) {
    now.updateAndGet(instant -> instant.plus(step));
  }

  public void set(Instant instant) {
    now.set(instant);
  }
}
