package io.picomq.s3stream.core.blockcache;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test says so. */
public final class FakeClock implements InstantSource {
  private final AtomicLong millis = new AtomicLong(1_000_000);

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public long millis() {
    return millis.get();
  }

  public void advance(Duration by) {
    millis.addAndGet(by.toMillis());
  }
}
