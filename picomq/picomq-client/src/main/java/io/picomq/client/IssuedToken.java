package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A token just issued by {@link AdminClient#issueToken}: the only time its secret is shown. Keep
 * {@link #token()} somewhere safe; the server stores only a hash of the secret and cannot show it
 * again. {@code toString()} masks it (see {@link BearerToken}).
 *
 * @param token the credential to give to a client
 * @param info the token as it will be listed
 */
public record IssuedToken(BearerToken token, TokenInfo info) {

  public IssuedToken {
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(info, "info");
  }

  /**
   * The wire form, secret included: {@code {"id", "token", "label", "scope", "created_at",
   * "issued_by"}}.
   */
  public ObjectNode toJson() {
    ObjectNode json = info.toJson();
    ObjectNode ordered = json.objectNode();
    ordered.put("id", info.id());
    ordered.put("token", token.value());
    json.fields().forEachRemaining(field -> ordered.set(field.getKey(), field.getValue()));
    return ordered;
  }

  /**
   * Reads the answer to {@code POST /admin/tokens}.
   *
   * @throws PicoException {@code malformed_answer} if it is not that answer
   */
  static IssuedToken fromJson(JsonNode json) {
    if (json == null || !json.path("token").isTextual()) {
      throw Responses.malformed("the issued token's answer has no token");
    }
    return new IssuedToken(new BearerToken(json.path("token").asText()), TokenInfo.fromJson(json));
  }
}
