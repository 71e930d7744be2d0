package io.picomq.cli.client;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** Parses the times the client verbs take: {@code --ttl} durations and {@code --expires-at}. */
final class TimeArguments {
  private TimeArguments() {}

  /**
   * A duration: whole seconds ({@code 3600}), a number with a unit ({@code 90s}, {@code 15m},
   * {@code 2h}, {@code 7d}) or ISO-8601 ({@code PT1H}).
   */
  static Duration duration(String flag, String text) {
    String value = text.strip().toLowerCase(Locale.ROOT);
    try {
      if (value.startsWith("p")) {
        return Duration.parse(value.toUpperCase(Locale.ROOT));
      }
      if (value.isEmpty()) {
        throw new NumberFormatException();
      }
      char unit = value.charAt(value.length() - 1);
      String digits = Character.isDigit(unit) ? value : value.substring(0, value.length() - 1);
      long amount = Long.parseLong(digits);
      if (amount < 0) {
        throw new NumberFormatException();
      }
      return switch (unit) {
        case 's' -> Duration.ofSeconds(amount);
        case 'm' -> Duration.ofMinutes(amount);
        case 'h' -> Duration.ofHours(amount);
        case 'd' -> Duration.ofDays(amount);
        default -> {
          if (!Character.isDigit(unit)) {
            throw new NumberFormatException();
          }
          yield Duration.ofSeconds(amount);
        }
      };
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new IllegalArgumentException(
          flag
              + " wants seconds (3600), a number with s, m, h or d (90m), or ISO-8601 (PT1H), not '"
              + text
              + "'");
    }
  }

  /** An instant: RFC 3339 ({@code 2026-12-31T23:59:59Z}) or unix milliseconds. */
  static Instant instant(String flag, String text) {
    String value = text.strip();
    try {
      if (!value.isEmpty() && value.chars().allMatch(Character::isDigit)) {
        return Instant.ofEpochMilli(Long.parseLong(value));
      }
      return OffsetDateTime.parse(value).toInstant();
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new IllegalArgumentException(
          flag + " wants RFC 3339 (2026-12-31T23:59:59Z) or unix milliseconds, not '" + text + "'");
    }
  }
}
