package io.picomq.frontend.pico;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.Exchange;
import io.picomq.protocol.PicoHeaders;
import io.picomq.stream.Expiry;
import io.picomq.stream.StreamService;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Reads query parameters and headers strictly: a value given twice, a number with a sign, a space
 * or too many digits, an unknown word: each is an {@link InvalidRequest} naming the culprit, never
 * a guess.
 */
final class Params {

  /** The most body bytes one read may ask for ({@code bytes}). */
  static final int MAX_READ_BYTES = 16 << 20;

  /** The most records one read may ask for ({@code count}). */
  static final int MAX_COUNT = 10_000;

  /** Records per read when the request gives no {@code count}. */
  static final int DEFAULT_COUNT = 1_000;

  /** Up to 18 digits always fit a {@code long}. */
  private static final Pattern DIGITS = Pattern.compile("[0-9]{1,18}");

  private Params() {}

  /** The parameter's value, or null when absent. */
  static String query(Exchange exchange, String name) throws InvalidRequest {
    List<String> values = exchange.query().get(name);
    if (values == null) {
      return null;
    }
    if (values.size() > 1) {
      throw new InvalidRequest("give the " + name + " parameter once");
    }
    return values.getFirst();
  }

  /** The header's value, stripped, or null when absent. */
  static String header(Exchange exchange, CharSequence name) throws InvalidRequest {
    List<String> values = exchange.headers().getAll(name);
    if (values.isEmpty()) {
      return null;
    }
    if (values.size() > 1) {
      throw new InvalidRequest("give the " + name + " header once");
    }
    return values.getFirst().strip();
  }

  /** A whole number from 0 to 10^18 - 1. */
  static long nonNegative(String value, String what) throws InvalidRequest {
    if (!DIGITS.matcher(value).matches()) {
      throw new InvalidRequest(what + " is a whole number from 0, not \"" + value + "\"");
    }
    return Long.parseLong(value);
  }

  static OptionalLong optionalNonNegative(String value, String what) throws InvalidRequest {
    return value == null ? OptionalLong.empty() : OptionalLong.of(nonNegative(value, what));
  }

  /** A whole number in {@code [min, max]}, or {@code fallback} when absent. */
  static int within(String value, String what, int min, int max, int fallback)
      throws InvalidRequest {
    if (value == null) {
      return fallback;
    }
    long parsed = nonNegative(value, what);
    if (parsed < min || parsed > max) {
      throw new InvalidRequest(what + " is from " + min + " to " + max + ", not " + value);
    }
    return (int) parsed;
  }

  /** {@code true} or {@code false} in any case; absent is false. */
  static boolean flag(String value, String what) throws InvalidRequest {
    if (value == null || value.equalsIgnoreCase("false")) {
      return false;
    }
    if (value.equalsIgnoreCase("true")) {
      return true;
    }
    throw new InvalidRequest(what + " is true or false, not \"" + value + "\"");
  }

  /**
   * The expiry a create asks for: {@code Pico-TTL} seconds, or {@code Pico-Expires-At} as RFC 3339
   * or unix milliseconds (in the future), or neither. Either is at most {@link Expiry#MAX_SECONDS}
   * (100 years) from now.
   */
  static Optional<Expiry> expiry(Exchange exchange, InstantSource clock) throws InvalidRequest {
    String ttl = header(exchange, PicoHeaders.TTL);
    String expiresAt = header(exchange, PicoHeaders.EXPIRES_AT);
    if (ttl != null && expiresAt != null) {
      throw new InvalidRequest("give Pico-TTL or Pico-Expires-At, not both");
    }
    if (ttl != null) {
      if (!DIGITS.matcher(ttl).matches() || Long.parseLong(ttl) > Expiry.MAX_SECONDS) {
        throw new InvalidRequest(
            PicoHeaders.TTL
                + " is a whole number of seconds from 0 to "
                + Expiry.MAX_SECONDS
                + " (100 years), not \""
                + ttl
                + "\"");
      }
      return Optional.of(new Expiry.Ttl(Long.parseLong(ttl)));
    }
    if (expiresAt == null) {
      return Optional.empty();
    }
    Instant instant = instant(expiresAt);
    Instant now = clock.instant();
    if (!instant.isAfter(now)) {
      throw new InvalidRequest(PicoHeaders.EXPIRES_AT + " " + expiresAt + " is not in the future");
    }
    if (instant.isAfter(now.plusSeconds(Expiry.MAX_SECONDS))) {
      throw new InvalidRequest(
          PicoHeaders.EXPIRES_AT
              + " "
              + expiresAt
              + " is more than "
              + Expiry.MAX_SECONDS
              + " seconds (100 years) ahead");
    }
    return Optional.of(new Expiry.At(instant));
  }

  private static Instant instant(String value) throws InvalidRequest {
    if (DIGITS.matcher(value).matches()) {
      return Instant.ofEpochMilli(Long.parseLong(value));
    }
    try {
      return OffsetDateTime.parse(value, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      throw new InvalidRequest(
          PicoHeaders.EXPIRES_AT + " is RFC 3339 or unix milliseconds, not \"" + value + "\"");
    }
  }

  /** Whether the request's content type names this media type (parameters ignored). */
  static boolean isMediaType(HttpHeaders headers, String mediaType) {
    String contentType = headers.get(HttpHeaderNames.CONTENT_TYPE);
    return contentType != null && StreamService.mediaType(contentType).equals(mediaType);
  }
}
