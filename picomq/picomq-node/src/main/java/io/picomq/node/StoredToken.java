package io.picomq.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.picomq.frontend.access.InvalidScope;
import io.picomq.frontend.access.Scope;
import io.picomq.frontend.access.ScopeJson;
import io.picomq.frontend.access.SecretDigest;
import io.picomq.meta.state.KvValue;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Optional;

/**
 * A token as the metadata KV holds it: the SHA-256 of its secret (never the secret), its scope, and
 * who issued it when. Stored as JSON: {@code {"digest":"<base64url>","label":...,"scope":{...},
 * "created_at":"...","issued_by":"<id>"|null}}.
 *
 * @param label the issuer's note, or null
 * @param issuedBy the id of the issuing token; empty for the root token and anonymous issuers
 */
record StoredToken(
    String id,
    byte[] digest,
    Scope scope,
    String label,
    Instant createdAt,
    Optional<String> issuedBy) {

  private static final ObjectMapper JSON = new ObjectMapper();

  KvValue encode() {
    ObjectNode json = JSON.createObjectNode();
    json.put("digest", Base64.getUrlEncoder().withoutPadding().encodeToString(digest));
    json.put("label", label);
    json.set("scope", ScopeJson.write(scope));
    json.put("created_at", createdAt.toString());
    json.put("issued_by", issuedBy.orElse(null));
    try {
      return KvValue.of(JSON.writeValueAsBytes(json));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new java.io.UncheckedIOException("writing a JSON tree to memory cannot fail", e);
    }
  }

  /** The stored token, or empty when the value is not one (logged by the caller). */
  static Optional<StoredToken> decode(String id, KvValue value) {
    try {
      JsonNode json = JSON.readTree(value.toByteArray());
      byte[] digest = Base64.getUrlDecoder().decode(json.path("digest").asText());
      if (digest.length != SecretDigest.BYTES) {
        return Optional.empty();
      }
      return Optional.of(
          new StoredToken(
              id,
              digest,
              ScopeJson.parse(json.get("scope")),
              json.path("label").isTextual() ? json.get("label").textValue() : null,
              Instant.parse(json.path("created_at").asText()),
              json.path("issued_by").isTextual()
                  ? Optional.of(json.get("issued_by").textValue())
                  : Optional.empty()));
    } catch (IOException | InvalidScope | IllegalArgumentException | DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** What listings and the issue answer show: everything but the digest. */
  ObjectNode describe() {
    ObjectNode json = JSON.createObjectNode();
    json.put("id", id);
    json.put("label", label);
    json.set("scope", ScopeJson.write(scope));
    json.put("created_at", createdAt.toString());
    json.put("issued_by", issuedBy.orElse(null));
    return json;
  }
}
