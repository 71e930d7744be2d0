package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A token as {@link AdminClient#tokens()} lists it: everything but the secret, which the server
 * does not keep.
 *
 * @param id what the token is listed and revoked by (the part before the dot)
 * @param label the issuer's note, if any
 * @param scope what the token allows
 * @param createdAt when it was issued
 * @param issuedBy the id of the token that issued it, or how the server names the root token
 */
public record TokenInfo(
    String id, Optional<String> label, TokenScope scope, Instant createdAt, String issuedBy) {

  public TokenInfo {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(issuedBy, "issuedBy");
  }

  /** The wire form: {@code {"id", "label", "scope", "created_at", "issued_by"}}. */
  public ObjectNode toJson() {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    json.put("id", id);
    label.ifPresentOrElse(text -> json.put("label", text), () -> json.putNull("label"));
    json.set("scope", scope.toJson());
    json.put("created_at", createdAt.toString());
    json.put("issued_by", issuedBy);
    return json;
  }

  /**
   * Reads the wire form.
   *
   * @throws PicoException {@code malformed_answer} if a field is missing or has the wrong type
   */
  public static TokenInfo fromJson(JsonNode json) {
    if (json == null || !json.isObject() || !json.path("id").isTextual()) {
      // Not the JSON in the message: an issued token's answer holds the secret.
      throw Responses.malformed("a token in the answer has no textual id");
    }
    JsonNode label = json.path("label");
    JsonNode created = json.path("created_at");
    Instant createdAt =
        Responses.instant(created.asText())
            .orElseThrow(() -> Responses.malformed("created_at is not RFC 3339: " + created));
    return new TokenInfo(
        json.path("id").asText(),
        label.isTextual() ? Optional.of(label.asText()) : Optional.empty(),
        TokenScope.fromJson(json.path("scope")),
        createdAt,
        json.path("issued_by").asText(""));
  }
}
