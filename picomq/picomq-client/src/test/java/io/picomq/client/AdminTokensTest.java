package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admin client's token and anonymous-scope calls against a scripted admin listener on a real
 * socket: the paths, methods, bodies and headers they send, and how they read the answers.
 */
class AdminTokensTest {

  private static final String TOKEN = AuthorizationTest.TOKEN;
  private static final String SCOPE_JSON =
      "{\"streams\":[\"orders\",\"logs/*\"],\"operations\":[\"read\",\"append\"],"
          + "\"audiences\":[\"pico\"],\"expires_at\":\"2027-01-01T00:00:00Z\"}";

  private final List<ScriptedHttpServer.Request> requests = new CopyOnWriteArrayList<>();
  private ScriptedHttpServer server;

  @AfterEach
  void stop() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  static TokenInfo info(String id) {
    return new TokenInfo(
        id,
        Optional.empty(),
        TokenScope.of(List.of("a"), List.of("read"), List.of("pico")),
        Instant.EPOCH,
        "root");
  }

  private AdminClient admin(Function<ScriptedHttpServer.Request, ScriptedHttpServer.Answer> script)
      throws IOException {
    server =
        new ScriptedHttpServer(
            request -> {
              requests.add(request);
              return script.apply(request);
            });
    return AdminClient.builder().endpoint(server.base()).token(TOKEN).build();
  }

  private static ScriptedHttpServer.Answer json(int status, String body) {
    return new ScriptedHttpServer.Answer(
        status, Map.of("Content-Type", "application/json"), body.getBytes(StandardCharsets.UTF_8));
  }

  private static JsonNode body(ScriptedHttpServer.Request request) throws IOException {
    return ErrorAnswers.JSON.readTree(request.body());
  }

  @Test
  void issueSendsTheScopeAndLabelAndReadsTheToken() throws IOException {
    String answer =
        "{\"id\":\"AAECAwQFBgcI\",\"token\":\""
            + TOKEN
            + "\",\"label\":\"billing\",\"scope\":"
            + SCOPE_JSON
            + ",\"created_at\":\"2026-12-02T12:00:00Z\",\"issued_by\":\"root\"}";
    TokenScope scope =
        TokenScope.of(List.of("orders", "logs/*"), List.of("read", "append"), List.of("pico"))
            .withExpiresAt(Instant.parse("2027-01-01T00:00:00Z"));
    IssuedToken issued;
    try (AdminClient admin = admin(request -> json(201, answer))) {
      issued = admin.issueToken(scope, Optional.of("billing"));
    }
    ScriptedHttpServer.Request sent = requests.getFirst();
    assertThat(sent.method() + " " + sent.target()).isEqualTo("POST /admin/tokens");
    assertThat(sent.headers())
        .containsEntry("authorization", "Bearer " + TOKEN)
        .containsEntry("content-type", "application/json");
    assertThat(body(sent))
        .isEqualTo(
            ErrorAnswers.JSON.readTree("{\"scope\":" + SCOPE_JSON + ",\"label\":\"billing\"}"));

    assertThat(issued.token().value()).isEqualTo(TOKEN);
    assertThat(issued.info())
        .isEqualTo(
            new TokenInfo(
                "AAECAwQFBgcI",
                Optional.of("billing"),
                scope,
                Instant.parse("2026-12-02T12:00:00Z"),
                "root"));
    // The whole answer again, as pico admin token issue --json prints it.
    assertThat(issued.toJson()).isEqualTo(ErrorAnswers.JSON.readTree(answer));
  }

  @Test
  void aScopeWithoutExpiryHasNoExpiresAtAndNoLabelIsLeftOut() throws IOException {
    try (AdminClient admin =
        admin(
            request ->
                json(
                    403,
                    "{\"error\":\"scope_too_wide\",\"message\":\"all is wider than read\"}"))) {
      assertThatThrownBy(
              () ->
                  admin.issueToken(
                      TokenScope.of(List.of("*"), List.of("all"), List.of("admin")),
                      Optional.empty()))
          .isInstanceOf(ForbiddenException.class)
          .hasMessage("403 scope_too_wide: all is wider than read");
    }
    assertThat(body(requests.getFirst()))
        .isEqualTo(
            ErrorAnswers.JSON.readTree(
                "{\"scope\":{\"streams\":[\"*\"],\"operations\":[\"all\"],"
                    + "\"audiences\":[\"admin\"]}}"));
  }

  @Test
  void listReadsEveryToken() throws IOException {
    String listed =
        "{\"tokens\":[{\"id\":\"a1\",\"label\":null,\"scope\":"
            + SCOPE_JSON
            + ",\"created_at\":\"2026-12-02T12:00:00Z\",\"issued_by\":\"root\"},"
            + "{\"id\":\"b2\",\"label\":\"ci\",\"scope\":{\"streams\":[\"x\"],"
            + "\"operations\":[\"read\"],\"audiences\":[\"pico\"],\"expires_at\":null},"
            + "\"created_at\":\"2026-12-02T12:00:01Z\",\"issued_by\":\"a1\"}]}";
    List<TokenInfo> tokens;
    try (AdminClient admin = admin(request -> json(200, listed))) {
      tokens = admin.tokens();
    }
    assertThat(requests.getFirst().method() + " " + requests.getFirst().target())
        .isEqualTo("GET /admin/tokens");
    assertThat(tokens).extracting(TokenInfo::id).containsExactly("a1", "b2");
    assertThat(tokens.get(0).label()).isEmpty();
    assertThat(tokens.get(0).scope().expiresAt()).contains(Instant.parse("2027-01-01T00:00:00Z"));
    assertThat(tokens.get(1).label()).contains("ci");
    assertThat(tokens.get(1).scope().expiresAt()).isEmpty();
    assertThat(tokens.get(1).issuedBy()).isEqualTo("a1");
  }

  @Test
  void revokeDeletesByIdAndAnUnknownIdIsTokenNotFound() throws IOException {
    try (AdminClient admin =
        admin(
            request ->
                request.target().endsWith("/known")
                    ? new ScriptedHttpServer.Answer(204, Map.of())
                    : json(404, "{\"error\":\"not_found\",\"message\":\"no token with id x\"}"))) {
      admin.revokeToken("known");
      assertThatThrownBy(() -> admin.revokeToken("x"))
          .isInstanceOfSatisfying(
              TokenNotFoundException.class,
              e -> assertThat(e.message()).isEqualTo("no token with id x"));
      assertThatThrownBy(() -> admin.revokeToken("a/b"))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(requests)
        .extracting(r -> r.method() + " " + r.target())
        .containsExactly("DELETE /admin/tokens/known", "DELETE /admin/tokens/x");
  }

  @Test
  void theAnonymousScopeIsReadSetAndCleared() throws IOException {
    try (AdminClient admin =
        admin(
            request ->
                switch (request.method()) {
                  case "GET" ->
                      json(
                          200,
                          requests.size() == 1
                              ? "{\"scope\":null}"
                              : "{\"scope\":" + SCOPE_JSON + "}");
                  case "PUT" -> json(200, "{\"scope\":" + SCOPE_JSON + "}");
                  default -> new ScriptedHttpServer.Answer(204, Map.of());
                })) {
      assertThat(admin.anonymousScope()).isEmpty();
      TokenScope scope =
          TokenScope.of(List.of("public/*"), List.of("read"), List.of("pico", "durable_streams"));
      admin.setAnonymousScope(scope);
      assertThat(admin.anonymousScope().orElseThrow().streams())
          .containsExactly("orders", "logs/*");
      admin.clearAnonymousScope();
    }
    assertThat(requests)
        .extracting(r -> r.method() + " " + r.target())
        .containsExactly(
            "GET /admin/anonymous",
            "PUT /admin/anonymous",
            "GET /admin/anonymous",
            "DELETE /admin/anonymous");
    assertThat(body(requests.get(1)))
        .isEqualTo(
            ErrorAnswers.JSON.readTree(
                "{\"scope\":{\"streams\":[\"public/*\"],\"operations\":[\"read\"],"
                    + "\"audiences\":[\"pico\",\"durable_streams\"]}}"));
    assertThat(requests.get(1).headers()).containsEntry("content-type", "application/json");
    assertThat(requests)
        .allSatisfy(r -> assertThat(r.headers()).containsEntry("authorization", "Bearer " + TOKEN));
  }

  @Test
  void theDataClientsAdminClientSendsItsToken() throws IOException {
    server =
        new ScriptedHttpServer(
            request -> {
              requests.add(request);
              return json(200, "{\"nodes\":[]}");
            });
    try (PicoClient client =
            PicoClient.builder().endpoint(URI.create("http://127.0.0.1:1")).token(TOKEN).build();
        AdminClient admin = client.admin(server.base())) {
      admin.nodes();
    }
    assertThat(requests.getFirst().headers()).containsEntry("authorization", "Bearer " + TOKEN);
  }

  @Test
  void aTokenMayBeSetOnce() {
    assertThatThrownBy(() -> PicoClient.builder().token("a.b").token("c.d"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("token was already set to BearerToken[***]");
  }
}
