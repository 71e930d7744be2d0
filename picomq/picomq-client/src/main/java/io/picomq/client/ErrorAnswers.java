package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.picomq.protocol.PicoHeaders;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Turns a server's error answer into the matching {@link PicoException}. Both protocols answer
 * errors as JSON {@code {"error": code, "message": text, ...}}; the mapping looks at the status
 * first and the code second, and takes numbers (the stream's tail, a producer's expected seq) from
 * the body or the protocol's headers. It is the one place answers become exceptions: {@code 503}
 * and {@code 507} become {@link ServiceUnavailableException} with the {@code Retry-After} duration,
 * {@code 401} and {@code 403} become {@link UnauthorizedException} and {@link ForbiddenException},
 * whichever call (append, read, SSE feed) got them.
 */
final class ErrorAnswers {

  static final ObjectMapper JSON = new ObjectMapper();

  private static final int MAX_TEXT = 512;

  private ErrorAnswers() {}

  /** The exception for an answer with {@code status} that is not a success. */
  static PicoException from(Protocol protocol, int status, HttpHeaders headers, byte[] body) {
    JsonNode json = parse(body);
    String code = text(json, "error");
    if (code.isEmpty()) {
      code =
          switch (status) {
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            case 404 -> "stream_not_found";
            default -> "http_" + status;
          };
    }
    String message = text(json, "message");
    if (message.isEmpty() && !(json instanceof ObjectNode object && object.size() > 0)) {
      message = abbreviate(new String(body, StandardCharsets.UTF_8));
    }
    boolean pico = protocol == Protocol.PICO;
    if (status == 404 && !code.equals("unknown_node")) {
      return new StreamNotFoundException(status, code, message, json, null);
    }
    if (status == 410 && code.equals("stream_gone")) {
      return new StreamNotFoundException(status, code, message, json, null);
    }
    if (code.equals("stale_producer_epoch")) {
      return new StaleProducerEpochException(status, code, message, json, null);
    }
    // After the stale epoch: Durable Streams answers a fenced producer 403 too. A refused HEAD
    // has no body, so these say what the status means when the server could not.
    if (status == 401) {
      return new UnauthorizedException(
          status,
          code,
          message.isEmpty() ? "no valid token (none was sent, or the server refused it)" : message,
          json,
          null);
    }
    if (status == 403) {
      return new ForbiddenException(
          status,
          code,
          message.isEmpty() ? "the token's scope does not allow this request" : message,
          json,
          null);
    }
    if (status == 409) {
      return switch (code) {
        case "stream_closed" -> new StreamClosedException(status, code, message, json, null);
        case "seq_mismatch", "tail_mismatch" ->
            new SeqMismatchException(
                status, code, message, json, null, nextSeq(json, headers, pico).orElse(-1));
        case "producer_seq_gap" ->
            new ProducerConflictException(
                status,
                code,
                message,
                json,
                null,
                number(headers, pico ? PicoHeaders.EXPECTED_SEQ : "Producer-Expected-Seq")
                    .orElse(-1),
                number(headers, pico ? PicoHeaders.RECEIVED_SEQ : "Producer-Received-Seq")
                    .orElse(-1));
        default -> new ConflictException(status, code, message, json, null);
      };
    }
    if (status == 400 || status == 413 || status == 414 || status == 431) {
      return new BadRequestException(status, code, message, json, null);
    }
    if (status == 503 || status == 507) {
      return new ServiceUnavailableException(
          status, code, message, json, null, retryAfter(headers, Instant.now()));
    }
    if (status >= 500) {
      return new ServerException(status, code, message, json, null);
    }
    return new PicoException(status, code, message, json, null);
  }

  /**
   * The {@code Retry-After} header: delay-seconds (what PicoMQ sends) or an HTTP date (what a proxy
   * may send), as a duration from {@code now}; empty when absent or unreadable, zero for a date in
   * the past.
   */
  static Optional<Duration> retryAfter(HttpHeaders headers, Instant now) {
    Optional<String> value = headers.firstValue("Retry-After").map(String::strip);
    if (value.isEmpty() || value.get().isEmpty()) {
      return Optional.empty();
    }
    String text = value.get();
    if (text.chars().allMatch(Character::isDigit)) {
      try {
        return Optional.of(Duration.ofSeconds(Long.parseLong(text)));
      } catch (NumberFormatException tooLong) {
        // More digits than a long holds: as good as "a very long time", which callers cap anyway.
        return Optional.of(Duration.ofSeconds(Long.MAX_VALUE));
      }
    }
    try {
      Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      return Optional.of(at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  private static OptionalLong nextSeq(JsonNode json, HttpHeaders headers, boolean pico) {
    if (json.path("next_seq").canConvertToLong()) {
      return OptionalLong.of(json.path("next_seq").asLong());
    }
    if (pico) {
      return number(headers, PicoHeaders.NEXT_SEQ);
    }
    return headers
        .firstValue("Stream-Next-Offset")
        .map(offset -> OptionalLong.of(DsOffsets.parse(offset)))
        .orElse(OptionalLong.empty());
  }

  static OptionalLong number(HttpHeaders headers, String name) {
    return headers
        .firstValue(name)
        .map(
            value -> {
              try {
                return OptionalLong.of(Long.parseLong(value.strip()));
              } catch (NumberFormatException e) {
                return OptionalLong.empty();
              }
            })
        .orElse(OptionalLong.empty());
  }

  private static JsonNode parse(byte[] body) {
    if (body.length > 0) {
      try {
        JsonNode json = JSON.readTree(body);
        if (json != null && json.isObject()) {
          return json;
        }
      } catch (IOException e) {
        // Not JSON (a proxy's page, say): the text goes into the message instead.
      }
    }
    return JsonNodeFactory.instance.objectNode();
  }

  private static String text(JsonNode json, String field) {
    JsonNode value = json.get(field);
    return value != null && value.isTextual() ? value.asText() : "";
  }

  private static String abbreviate(String text) {
    String stripped = text.strip();
    return stripped.length() <= MAX_TEXT ? stripped : stripped.substring(0, MAX_TEXT) + "...";
  }
}
