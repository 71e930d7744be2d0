package io.picomq.frontend.access;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A scope's JSON form, on the wire and as stored:
 *
 * <pre>{@code
 * {"streams":["orders","logs/*"],"operations":["read","append"],
 *  "audiences":["pico","durable_streams","admin"],"expires_at":"2027-01-01T00:00:00Z"}
 * }</pre>
 *
 * Every field but {@code expires_at} is required and non-empty; an unknown field, verb, audience or
 * a bad matcher is refused with its name in the message.
 */
public final class ScopeJson {

  private static final Set<String> FIELDS =
      Set.of("streams", "operations", "audiences", "expires_at");

  private ScopeJson() {}

  public static Scope parse(JsonNode json) throws InvalidScope {
    if (json == null || !json.isObject()) {
      throw new InvalidScope("a scope is a JSON object with streams, operations and audiences");
    }
    for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw new InvalidScope(
            "unknown scope field '" + name + "'; a scope has " + String.join(", ", sorted()));
      }
    }
    List<StreamMatcher> streams = new ArrayList<>();
    for (String text : strings(json, "streams")) {
      streams.add(
          StreamMatcher.parse(text)
              .orElseThrow(
                  () ->
                      new InvalidScope(
                          "bad stream matcher '"
                              + text
                              + "': a stream name, a prefix ending in *, or * for every stream")));
    }
    List<String> operations = strings(json, "operations");
    Set<Verb> verbs = EnumSet.noneOf(Verb.class);
    for (String operation : operations) {
      verbs.addAll(
          Verb.parse(operation)
              .orElseThrow(
                  () ->
                      new InvalidScope(
                          "unknown operation '"
                              + operation
                              + "'; operations are read, write, admin, all, or one of "
                              + fineVerbs())));
    }
    Set<Audience> audiences = EnumSet.noneOf(Audience.class);
    for (String audience : strings(json, "audiences")) {
      audiences.add(
          Audience.parse(audience)
              .orElseThrow(
                  () ->
                      new InvalidScope(
                          "unknown audience '"
                              + audience
                              + "'; audiences are pico, durable_streams and admin")));
    }
    return new Scope(streams, operations, verbs, audiences, expiresAt(json.get("expires_at")));
  }

  public static ObjectNode write(Scope scope) {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    ArrayNode streams = json.putArray("streams");
    scope.streams().forEach(matcher -> streams.add(matcher.written()));
    ArrayNode operations = json.putArray("operations");
    scope.operations().forEach(operations::add);
    ArrayNode audiences = json.putArray("audiences");
    for (Audience audience : Audience.values()) {
      if (scope.audiences().contains(audience)) {
        audiences.add(audience.wireName());
      }
    }
    if (scope.expiresAt().isPresent()) {
      json.put("expires_at", scope.expiresAt().get().toString());
    } else {
      json.putNull("expires_at");
    }
    return json;
  }

  private static List<String> strings(JsonNode json, String field) throws InvalidScope {
    JsonNode array = json.get(field);
    if (array == null || !array.isArray() || array.isEmpty()) {
      throw new InvalidScope("scope field '" + field + "' must be a non-empty array of strings");
    }
    Set<String> values = new LinkedHashSet<>();
    for (JsonNode element : array) {
      if (!element.isTextual()) {
        throw new InvalidScope(
            "scope field '" + field + "' holds " + element + ", which is not a string");
      }
      values.add(element.textValue());
    }
    return List.copyOf(values);
  }

  private static Optional<Instant> expiresAt(JsonNode value) throws InvalidScope {
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isTextual()) {
      throw new InvalidScope("expires_at " + value + " is not an RFC 3339 time string");
    }
    try {
      return Optional.of(
          OffsetDateTime.parse(value.textValue(), DateTimeFormatter.ISO_OFFSET_DATE_TIME)
              .toInstant());
    } catch (DateTimeParseException e) {
      throw new InvalidScope(
          "expires_at '"
              + value.textValue()
              + "' is not an RFC 3339 time such as 2027-01-01T00:00:00Z");
    }
  }

  private static List<String> sorted() {
    return FIELDS.stream().sorted().toList();
  }

  private static String fineVerbs() {
    List<String> names = new ArrayList<>();
    for (Verb verb : Verb.values()) {
      names.add(verb.wireName());
    }
    return String.join(", ", names);
  }
}
