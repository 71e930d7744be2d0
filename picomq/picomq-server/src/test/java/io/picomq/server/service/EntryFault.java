package io.picomq.server.service;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Registry entry writes that go through to the real log until told otherwise: then each write is
 * held (never completes, as if the node died with it in flight) or fails. Which writes are hit is
 * decided on cue by the test, so a crash lands exactly between an append's durability and its entry
 * write.
 */
final class EntryFault implements EntryLog {
  enum Mode {
    PASS,
    HOLD,
    FAIL
  }

  private final EntryLog real;
  private volatile Mode mode = Mode.PASS;

  /** Writes that still pass before the mode applies; negative: no countdown. */
  private final AtomicInteger passesLeft = new AtomicInteger(-1);

  final AtomicInteger held = new AtomicInteger();

  EntryFault(EntryLog real) {
    this.real = real;
  }

  void set(Mode value) {
    mode = value;
  }

  /** Lets {@code count} more writes through, then holds every later one. */
  void holdAfter(int count) {
    passesLeft.set(count);
    mode = Mode.HOLD;
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] entry) {
    if (passesLeft.getAndUpdate(left -> left > 0 ? left - 1 : left) > 0) {
      return real.put(key, entry);
    }
    return switch (mode) {
      case PASS -> real.put(key, entry);
      case HOLD -> {
        held.incrementAndGet();
        yield new CompletableFuture<>();
      }
      case FAIL ->
          CompletableFuture.failedFuture(new IllegalStateException("injected entry write fault"));
    };
  }
}
