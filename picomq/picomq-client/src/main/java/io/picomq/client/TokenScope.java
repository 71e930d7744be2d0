package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a token (or the anonymous scope) allows, in the admin API's wire form {@code {"streams":
 * [...], "operations": [...], "audiences": [...], "expires_at": "RFC 3339"}}. The SDK passes the
 * names through unchanged; the server checks them and answers {@link BadRequestException} for an
 * unknown one, {@link ForbiddenException} for a scope wider than the issuing token's.
 *
 * @param streams stream name matchers: an exact name ({@code orders}) or a prefix ({@code logs/*})
 * @param operations fine verbs ({@code list, head, read, create, append, close, trim, fork, delete,
 *     admin.read, admin.write, tokens}) or groups ({@code read, write, admin, all})
 * @param audiences the listeners the token works on: {@code pico}, {@code durable_streams}, {@code
 *     admin}
 * @param expiresAt when the token stops working, if it does
 */
public record TokenScope(
    List<String> streams,
    List<String> operations,
    List<String> audiences,
    Optional<Instant> expiresAt) {

  public TokenScope {
    streams = List.copyOf(streams);
    operations = List.copyOf(operations);
    audiences = List.copyOf(audiences);
    Objects.requireNonNull(expiresAt, "expiresAt");
  }

  /** A scope without expiry. */
  public static TokenScope of(
      List<String> streams, List<String> operations, List<String> audiences) {
    return new TokenScope(streams, operations, audiences, Optional.empty());
  }

  /** This scope, ending at {@code expiresAt}. */
  public TokenScope withExpiresAt(Instant expiresAt) {
    return new TokenScope(streams, operations, audiences, Optional.of(expiresAt));
  }

  /** The wire form; {@code expires_at} only when there is an expiry. */
  public ObjectNode toJson() {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    strings(json.putArray("streams"), streams);
    strings(json.putArray("operations"), operations);
    strings(json.putArray("audiences"), audiences);
    expiresAt.ifPresent(at -> json.put("expires_at", at.toString()));
    return json;
  }

  /**
   * Reads the wire form. Missing lists are empty; a {@code null} {@code expires_at} is no expiry.
   *
   * @throws PicoException {@code malformed_answer} if it is not an object or a field has the wrong
   *     type
   */
  public static TokenScope fromJson(JsonNode json) {
    if (json == null || !json.isObject()) {
      throw Responses.malformed("a token scope is not a JSON object: " + json);
    }
    JsonNode expires = json.path("expires_at");
    Optional<Instant> expiresAt = Optional.empty();
    if (expires.isTextual()) {
      expiresAt =
          Optional.of(
              Responses.instant(expires.asText())
                  .orElseThrow(
                      () -> Responses.malformed("expires_at is not RFC 3339: " + expires)));
    } else if (!expires.isMissingNode() && !expires.isNull()) {
      throw Responses.malformed("expires_at is not RFC 3339: " + expires);
    }
    return new TokenScope(
        strings(json, "streams"),
        strings(json, "operations"),
        strings(json, "audiences"),
        expiresAt);
  }

  private static void strings(ArrayNode array, List<String> values) {
    values.forEach(array::add);
  }

  private static List<String> strings(JsonNode json, String field) {
    JsonNode array = json.path(field);
    if (array.isMissingNode() || array.isNull()) {
      return List.of();
    }
    if (!array.isArray()) {
      throw Responses.malformed(field + " in a token scope is not an array: " + array);
    }
    List<String> values = new ArrayList<>();
    array.forEach(value -> values.add(value.asText()));
    return values;
  }
}
