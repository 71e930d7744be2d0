package io.picomq.client;

import java.time.Duration;
import java.util.Objects;

/** Checks shared by the option builders. */
final class OptionChecks {

  private OptionChecks() {}

  /** {@code value}, unless the setting was already made ({@code current} not null). */
  static <T> T once(T current, T value, String name) {
    Objects.requireNonNull(value, name);
    if (current != null) {
      throw new IllegalStateException(name + " was already set to " + current);
    }
    return value;
  }

  static Duration positive(Duration value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + value);
    }
    return value;
  }

  static Duration notNegative(Duration value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative: " + value);
    }
    return value;
  }

  static long positive(long value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive: " + value);
    }
    return value;
  }

  static long notNegative(long value, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must not be negative: " + value);
    }
    return value;
  }
}
