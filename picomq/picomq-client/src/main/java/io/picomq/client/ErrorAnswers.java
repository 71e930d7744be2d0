package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.picomq.protocol.PicoHeaders;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/**
 * Turns a server's error answer into the matching {@link PicoException}. Both protocols answer
 * errors as JSON {@code {"error": code, "message": text, ...}}; the mapping looks at the status
 * first and the code second, and takes numbers (the stream's tail, a producer's expected seq) from
 * the body or the protocol's headers.
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
      code = status == 404 ? "stream_not_found" : "http_" + status;
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
    if (status >= 500) {
      return new ServerException(status, code, message, json, null);
    }
    return new PicoException(status, code, message, json, null);
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
