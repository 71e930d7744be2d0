package io.picomq.client;

import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.OptionalLong;

/** Helpers both dialects use to judge answers and read their headers. */
final class Responses {

  private Responses() {}

  /**
   * {@code response} if its status is a success (2xx or 304), else the matching exception.
   *
   * @throws PicoException for any other status
   */
  static HttpResponse<byte[]> success(Protocol protocol, HttpResponse<byte[]> response) {
    int status = response.statusCode();
    if ((status >= 200 && status < 300) || status == 304) {
      return response;
    }
    byte[] body = response.body() == null ? new byte[0] : response.body();
    throw ErrorAnswers.from(protocol, status, response.headers(), body);
  }

  /** A header that must be a number. */
  static long requiredNumber(HttpHeaders headers, String name) {
    return ErrorAnswers.number(headers, name)
        .orElseThrow(() -> malformed("the answer lacks a numeric " + name + " header"));
  }

  static OptionalLong number(HttpHeaders headers, String name) {
    return ErrorAnswers.number(headers, name);
  }

  static boolean flag(HttpHeaders headers, String name) {
    return headers.firstValue(name).map(v -> v.strip().equalsIgnoreCase("true")).orElse(false);
  }

  static Optional<Duration> ttl(HttpHeaders headers, String name) {
    OptionalLong seconds = number(headers, name);
    return seconds.isPresent()
        ? Optional.of(Duration.ofSeconds(seconds.getAsLong()))
        : Optional.empty();
  }

  static Optional<Instant> instant(HttpHeaders headers, String name) {
    return headers.firstValue(name).flatMap(Responses::instant);
  }

  static Optional<Instant> instant(String text) {
    try {
      return Optional.of(
          OffsetDateTime.parse(text.strip(), DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant());
    } catch (DateTimeParseException e) {
      try {
        return Optional.of(Instant.ofEpochMilli(Long.parseLong(text.strip())));
      } catch (NumberFormatException notMillis) {
        return Optional.empty();
      }
    }
  }

  /** The answer did not have the shape the protocol promises. */
  static PicoException malformed(String message) {
    return new PicoException(0, "malformed_answer", message, null, null);
  }
}
