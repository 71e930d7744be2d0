package io.picomq.frontend.pico;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.protocol.RecordHeaders;
import io.picomq.stream.NewRecord;
import java.io.IOException;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses a JSON batch ({@code application/vnd.picomq.batch+json}): {@code {"records": [{"body":
 * "...", "headers": {...}}, {"body_b64": "..."}]}}. Strict, so a typo fails loudly instead of
 * appending something else: no unknown or repeated fields, exactly one of {@code body} and {@code
 * body_b64} per record, string header values, non-empty header names, well-formed text.
 */
final class JsonBatch {

  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private static final Set<String> RECORD_FIELDS = Set.of("body", "body_b64", "headers");

  private JsonBatch() {}

  /** The records of a batch, in order; possibly none. */
  static List<NewRecord> parse(byte[] json) throws InvalidRequest {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw malformed("not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw malformed("not JSON");
    }
    if (root == null || !root.isObject()) {
      throw malformed("a batch is an object {\"records\": [...]}");
    }
    if (root.size() != 1 || !root.has("records") || !root.get("records").isArray()) {
      throw malformed("a batch has one field, \"records\", an array");
    }
    List<NewRecord> records = new ArrayList<>(root.get("records").size());
    int index = 0;
    for (JsonNode record : root.get("records")) {
      records.add(record(record, index++));
    }
    return records;
  }

  private static NewRecord record(JsonNode record, int index) throws InvalidRequest {
    String where = "records[" + index + "]";
    if (!record.isObject()) {
      throw malformed(where + " is not an object");
    }
    for (Map.Entry<String, JsonNode> property : record.properties()) {
      String field = property.getKey();
      if (!RECORD_FIELDS.contains(field)) {
        throw malformed(where + " has an unknown field \"" + field + "\"");
      }
    }
    JsonNode text = record.get("body");
    JsonNode base64 = record.get("body_b64");
    if ((text == null) == (base64 == null)) {
      throw malformed(where + " needs exactly one of \"body\" and \"body_b64\"");
    }
    byte[] body;
    if (text != null) {
      if (!text.isTextual()) {
        throw malformed(where + ".body is not a string (use body_b64 for bytes)");
      }
      body = utf8(text.textValue(), where + ".body");
    } else {
      if (!base64.isTextual()) {
        throw malformed(where + ".body_b64 is not a string");
      }
      try {
        body = Base64.getDecoder().decode(base64.textValue());
      } catch (IllegalArgumentException e) {
        throw malformed(where + ".body_b64 is not base64: " + e.getMessage());
      }
    }
    return new NewRecord(headers(record.get("headers"), where), body);
  }

  private static Map<String, String> headers(JsonNode headers, String where) throws InvalidRequest {
    if (headers == null) {
      return Map.of();
    }
    if (!headers.isObject()) {
      throw malformed(where + ".headers is not an object");
    }
    Map<String, String> values = new HashMap<>();
    for (Map.Entry<String, JsonNode> header : headers.properties()) {
      if (!header.getValue().isTextual()) {
        throw malformed(where + ".headers." + header.getKey() + " is not a string");
      }
      values.put(header.getKey(), header.getValue().textValue());
    }
    try {
      return RecordHeaders.canonical(values);
    } catch (IllegalArgumentException e) {
      throw malformed(where + ".headers: " + e.getMessage());
    }
  }

  /** UTF-8 of well-formed text; a lone surrogate (from a {@code \\uD800} escape) is refused. */
  private static byte[] utf8(String text, String where) throws InvalidRequest {
    try {
      var encoded =
          StandardCharsets.UTF_8
              .newEncoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .encode(CharBuffer.wrap(text));
      byte[] bytes = new byte[encoded.remaining()];
      encoded.get(bytes);
      return bytes;
    } catch (CharacterCodingException e) {
      throw malformed(where + " has a lone surrogate");
    }
  }

  private static InvalidRequest malformed(String message) {
    return new InvalidRequest("malformed_batch", message);
  }
}
