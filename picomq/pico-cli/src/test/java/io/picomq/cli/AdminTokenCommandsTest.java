package io.picomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.cli.RecordingServer.Answer;
import io.picomq.cli.RecordingServer.Request;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pico admin token issue|list|revoke} and {@code pico admin anonymous show|set|clear}
 * against a scripted admin listener on a real socket: the requests they build and what they print.
 */
class AdminTokenCommandsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ROOT = TokenOptionsTest.FLAG_TOKEN;
  private static final String ISSUED = TokenOptionsTest.FILE_TOKEN;
  private static final String SCOPE =
      "{\"streams\":[\"orders\",\"logs/*\"],\"operations\":[\"read\",\"append\"],"
          + "\"audiences\":[\"pico\"],\"expires_at\":\"2027-01-01T00:00:00Z\"}";
  private static final String ISSUED_ANSWER =
      "{\"id\":\"filefilefile\",\"token\":\""
          + ISSUED
          + "\",\"label\":\"billing\",\"scope\":"
          + SCOPE
          + ",\"created_at\":\"2026-12-02T12:00:00Z\",\"issued_by\":\"root\"}";

  @TempDir java.nio.file.Path dir;
  private RecordingServer server;

  @AfterEach
  void stop() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  private PicoRunner.Run admin(Function<Request, Answer> script, String... args)
      throws IOException {
    if (server == null) {
      server = new RecordingServer(script);
    }
    List<String> all = new ArrayList<>(List.of("admin"));
    all.addAll(List.of(args));
    all.addAll(List.of("--admin-endpoint", server.base(), "--token", ROOT));
    return PicoRunner.run(
        Map.of("PICO_CONFIG", dir.resolve("none.json").toString()), all.toArray(String[]::new));
  }

  private static JsonNode json(String text) throws IOException {
    return JSON.readTree(text);
  }

  @Test
  void issuePostsTheScopeAndPrintsOnlyTheToken() throws IOException {
    PicoRunner.Run run =
        admin(
            request -> Answer.json(201, ISSUED_ANSWER),
            "token",
            "issue",
            "--streams",
            "orders,logs/*",
            "--operations",
            "read,append",
            "--audiences",
            "pico",
            "--expires-at",
            "2027-01-01T00:00:00Z",
            "--label",
            "billing");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).isEqualTo(ISSUED + "\n");
    assertThat(run.err())
        .isEqualTo("pico: issued token filefilefile; keep it safe, it cannot be shown again\n");

    Request sent = server.requests().getFirst();
    assertThat(sent.method() + " " + sent.target()).isEqualTo("POST /admin/tokens");
    assertThat(sent.authorization()).isEqualTo("Bearer " + ROOT);
    assertThat(sent.headers()).containsEntry("content-type", "application/json");
    assertThat(json(sent.body()))
        .isEqualTo(json("{\"scope\":" + SCOPE + ",\"label\":\"billing\"}"));
  }

  @Test
  void issueWithJsonPrintsTheWholeAnswer() throws IOException {
    PicoRunner.Run run =
        admin(
            request -> Answer.json(201, ISSUED_ANSWER),
            "token",
            "issue",
            "--json",
            "--streams",
            "orders,logs/*",
            "--operations",
            "read,append",
            "--audiences",
            "pico");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(json(run.out())).isEqualTo(json(ISSUED_ANSWER));
    assertThat(json(server.requests().getFirst().body()).path("scope").has("expires_at")).isFalse();
  }

  @Test
  void expiresInCountsFromNow() throws IOException {
    Instant before = Instant.now();
    PicoRunner.Run run =
        admin(
            request -> Answer.json(201, ISSUED_ANSWER),
            "token",
            "issue",
            "--streams",
            "a",
            "--operations",
            "read",
            "--audiences",
            "pico",
            "--expires-in",
            "1h");
    Instant after = Instant.now();
    assertThat(run.exitCode()).as(run.toString()).isZero();
    Instant expiresAt =
        Instant.parse(
            json(server.requests().getFirst().body()).path("scope").path("expires_at").asText());
    assertThat(expiresAt)
        .isBetween(before.plus(Duration.ofHours(1)), after.plus(Duration.ofHours(1)));
  }

  @Test
  void bothExpiriesOrAMalformedOneAreUsageErrorsSentNowhere() throws IOException {
    PicoRunner.Run both =
        admin(
            request -> Answer.json(201, ISSUED_ANSWER),
            "token",
            "issue",
            "--streams",
            "a",
            "--operations",
            "read",
            "--audiences",
            "pico",
            "--expires-in",
            "1h",
            "--expires-at",
            "2027-01-01T00:00:00Z");
    assertThat(both.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(both.err()).isEqualTo("pico: --expires-in and --expires-at exclude each other\n");
    PicoRunner.Run malformed =
        admin(
            request -> Answer.json(201, ISSUED_ANSWER),
            "token",
            "issue",
            "--streams",
            "a",
            "--operations",
            "read",
            "--audiences",
            "pico",
            "--expires-at",
            "tomorrow");
    assertThat(malformed.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(malformed.err()).startsWith("pico: --expires-at wants an RFC 3339 time");
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void aScopeWiderThanTheCallersIsForbidden() throws IOException {
    PicoRunner.Run run =
        admin(
            request ->
                Answer.json(
                    403,
                    "{\"error\":\"scope_too_wide\",\"message\":\"delete is wider than the"
                        + " issuing token\"}"),
            "token",
            "issue",
            "--streams",
            "a",
            "--operations",
            "all",
            "--audiences",
            "pico");
    assertThat(run.exitCode()).isEqualTo(ExitCode.FORBIDDEN);
    assertThat(run.err())
        .isEqualTo("pico: not allowed: delete is wider than the issuing token (scope_too_wide)\n");
  }

  @Test
  void listPrintsATableWithoutSecrets() throws IOException {
    String listed =
        "{\"tokens\":[{\"id\":\"a1\",\"label\":null,\"scope\":"
            + SCOPE
            + ",\"created_at\":\"2026-12-02T12:00:00Z\",\"issued_by\":\"root\"}]}";
    PicoRunner.Run run = admin(request -> Answer.json(200, listed), "token", "list");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out().lines().toList())
        .containsExactly(
            "ID  LABEL  STREAMS        OPERATIONS   AUDIENCES  EXPIRES_AT            CREATED_AT "
                + "           ISSUED_BY",
            "a1  -      orders,logs/*  read,append  pico       2027-01-01T00:00:00Z  "
                + "2026-12-02T12:00:00Z  root");
    assertThat(server.requests().getFirst().method() + " " + server.requests().getFirst().target())
        .isEqualTo("GET /admin/tokens");
  }

  @Test
  void revokeDeletesAndAnUnknownIdExitsNotFound() throws IOException {
    Function<Request, Answer> script =
        request ->
            request.target().endsWith("/a1")
                ? new Answer(204, Map.of(), "")
                : Answer.json(404, "{\"error\":\"token_not_found\",\"message\":\"no token b2\"}");
    PicoRunner.Run revoked = admin(script, "token", "revoke", "a1");
    assertThat(revoked.exitCode()).as(revoked.toString()).isZero();
    assertThat(revoked.out()).isEqualTo("revoked  a1\n");
    PicoRunner.Run unknown = admin(script, "token", "revoke", "b2");
    assertThat(unknown.exitCode()).isEqualTo(ExitCode.NOT_FOUND);
    assertThat(unknown.err()).isEqualTo("pico: no token b2 (token_not_found)\n");
    assertThat(server.requests())
        .extracting(r -> r.method() + " " + r.target())
        .containsExactly("DELETE /admin/tokens/a1", "DELETE /admin/tokens/b2");
  }

  @Test
  void anIdThatBeginsWithADashIsAnIdNotAnOption() throws IOException {
    // Base64url ids begin with '-' one time in 64; tokens issued before ids avoided it still do.
    PicoRunner.Run revoked =
        admin(request -> new Answer(204, Map.of(), ""), "token", "revoke", "-x4VfUq2Lm0a");
    assertThat(revoked.exitCode()).as(revoked.toString()).isZero();
    assertThat(revoked.out()).isEqualTo("revoked  -x4VfUq2Lm0a\n");
    assertThat(server.requests())
        .extracting(r -> r.method() + " " + r.target())
        .containsExactly("DELETE /admin/tokens/-x4VfUq2Lm0a");
  }

  @Test
  void anonymousShowSetAndClear() throws IOException {
    Function<Request, Answer> script =
        request ->
            switch (request.method()) {
              case "GET" -> Answer.json(200, "{\"scope\":null}");
              case "PUT" -> Answer.json(200, request.body());
              default -> new Answer(204, Map.of(), "");
            };
    PicoRunner.Run none = admin(script, "anonymous", "show");
    assertThat(none.exitCode()).as(none.toString()).isZero();
    assertThat(none.out()).isEqualTo("none: requests without a token are refused\n");

    PicoRunner.Run set =
        admin(
            script,
            "anonymous",
            "set",
            "--streams",
            "public/*",
            "--operations",
            "read",
            "--audiences",
            "pico,durable_streams");
    assertThat(set.exitCode()).as(set.toString()).isZero();
    assertThat(set.out().lines().toList())
        .containsExactly(
            "streams     public/*",
            "operations  read",
            "audiences   pico,durable_streams",
            "expires_at  never");

    PicoRunner.Run clear = admin(script, "anonymous", "clear", "--json");
    assertThat(clear.exitCode()).as(clear.toString()).isZero();
    assertThat(json(clear.out())).isEqualTo(json("{\"scope\":null}"));

    List<Request> requests = server.requests();
    assertThat(requests)
        .extracting(r -> r.method() + " " + r.target())
        .containsExactly("GET /admin/anonymous", "PUT /admin/anonymous", "DELETE /admin/anonymous");
    assertThat(json(requests.get(1).body()))
        .isEqualTo(
            json(
                "{\"scope\":{\"streams\":[\"public/*\"],\"operations\":[\"read\"],"
                    + "\"audiences\":[\"pico\",\"durable_streams\"]}}"));
    assertThat(requests).extracting(Request::authorization).containsOnly("Bearer " + ROOT);
  }

  @Test
  void everyAdminVerbSendsTheToken() throws IOException {
    PicoRunner.Run run = admin(request -> Answer.json(200, "{\"nodes\":[]}"), "nodes");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(server.requests().getFirst().authorization()).isEqualTo("Bearer " + ROOT);
  }
}
