package io.picomq.cli.bench;

import java.time.Duration;
import java.util.Locale;

/** Parses the sizes and durations given to {@code pico bench}: {@code 1KiB}, {@code 3s}. */
final class Quantities {
  private Quantities() {}

  /** {@code 1024}, {@code 1KiB}, {@code 4k}, {@code 1MB}: bytes, binary units unless "kB/MB". */
  static long bytes(String flag, String text) {
    String lower = text.strip().toLowerCase(Locale.ROOT);
    String[][] units = {
      {"kib", "1024"},
      {"mib", "1048576"},
      {"kb", "1000"},
      {"mb", "1000000"},
      {"k", "1024"},
      {"m", "1048576"},
      {"b", "1"}
    };
    long unit = 1;
    for (String[] suffix : units) {
      if (lower.endsWith(suffix[0])) {
        unit = Long.parseLong(suffix[1]);
        lower = lower.substring(0, lower.length() - suffix[0].length()).strip();
        break;
      }
    }
    try {
      long number = Long.parseLong(lower);
      if (number < 0) {
        throw new IllegalArgumentException(flag + " must not be negative: '" + text + "'");
      }
      return Math.multiplyExact(number, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(flag + ": not a size: '" + text + "'", e);
    }
  }

  /** {@code 500ms}, {@code 3s}, {@code 2m}, {@code 1h}; a bare number is seconds. */
  static Duration duration(String flag, String text) {
    String lower = text.strip().toLowerCase(Locale.ROOT);
    try {
      Duration value;
      if (lower.endsWith("ms")) {
        value = Duration.ofMillis(Long.parseLong(lower.substring(0, lower.length() - 2)));
      } else if (lower.endsWith("s")) {
        value = ofSeconds(lower.substring(0, lower.length() - 1), 1);
      } else if (lower.endsWith("m")) {
        value = ofSeconds(lower.substring(0, lower.length() - 1), 60);
      } else if (lower.endsWith("h")) {
        value = ofSeconds(lower.substring(0, lower.length() - 1), 3600);
      } else {
        value = ofSeconds(lower, 1);
      }
      if (value.isNegative()) {
        throw new IllegalArgumentException(flag + " must not be negative: '" + text + "'");
      }
      return value;
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          flag + ": not a duration (e.g. 500ms, 30s, 5m): '" + text + "'", e);
    }
  }

  private static Duration ofSeconds(String number, long unitSeconds) {
    double seconds = Double.parseDouble(number.strip()) * unitSeconds;
    if (Double.isNaN(seconds) || Double.isInfinite(seconds)) {
      throw new NumberFormatException(number);
    }
    return Duration.ofNanos(Math.round(seconds * 1e9));
  }
}
