package io.picomq.cli;

import java.time.Duration;
import java.util.Locale;

/**
 * Parses durations given on the command line: a whole number with a unit, {@code 500ms}, {@code
 * 10s}, {@code 2m}, {@code 1h}, or bare seconds ({@code 10}), as the {@code -sec} options take.
 */
public final class Durations {
  private Durations() {}

  public static Duration parse(String flag, String text) {
    String value = text.strip().toLowerCase(Locale.ROOT);
    int unitAt = 0;
    while (unitAt < value.length() && Character.isDigit(value.charAt(unitAt))) {
      unitAt++;
    }
    String digits = value.substring(0, unitAt);
    String unit = value.substring(unitAt).strip();
    try {
      if (digits.isEmpty()) {
        throw new NumberFormatException();
      }
      long amount = Long.parseLong(digits);
      return switch (unit) {
        case "ms" -> Duration.ofMillis(amount);
        case "", "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default -> throw new NumberFormatException();
      };
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          flag + " wants a whole number with ms, s, m or h (500ms, 10s), not '" + text + "'");
    }
  }
}
