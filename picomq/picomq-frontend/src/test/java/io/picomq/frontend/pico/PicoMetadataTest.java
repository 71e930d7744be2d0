package io.picomq.frontend.pico;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code HEAD}, {@code DELETE}, the list at {@code GET /}, routing, CORS. */
class PicoMetadataTest extends PicoWireTest {

  @BothVersions
  void headDescribesAStream(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = PicoServer.freshName("head");
    client.put(name, "first", "Content-Type", "application/json", "Pico-TTL", "300");
    client.post(name, "{}", "Content-Type", "application/json");
    client.post(name, "", "Pico-Trim-Seq", "1");

    PicoClient.Answer head = client.head(name);

    assertThat(head.status()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(head.header("content-type")).contains("application/json");
    assertThat(head.seqHeader("pico-next-seq")).isEqualTo(2);
    assertThat(head.seqHeader("pico-start-seq")).isEqualTo(1);
    assertThat(head.header("pico-ttl")).contains("300");
    assertThat(head.header("pico-expires-at")).isPresent();
    assertThat(head.header("pico-closed")).isEmpty();
    assertThat(client.head(PicoServer.freshName("absent")).status()).isEqualTo(404);
  }

  @BothVersions
  void deleteFreesTheNameAtOnce(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = PicoServer.freshName("delete");
    client.put(name, "old", "Content-Type", "text/plain");

    PicoClient.Answer deleted = client.delete(name);
    PicoClient.Answer again = client.delete(name);
    PicoClient.Answer recreated = client.put(name, "", "Content-Type", "application/json");

    assertThat(deleted.status()).isEqualTo(204);
    assertError(again, 404, "stream_not_found");
    assertThat(recreated.status()).isEqualTo(201);
    assertThat(recreated.seqHeader("pico-next-seq")).isZero();
  }

  @BothVersions
  void theListPagesThroughAPrefixInNameOrder(HttpClient.Version version) {
    PicoClient client = client(version);
    String prefix = PicoServer.freshName("list") + "/";
    for (String leaf : List.of("e", "a", "c", "b", "d")) {
      client.put(prefix + leaf, "", "Content-Type", "text/plain");
    }
    client.put(prefix + "c-sealed", "", "Pico-Closed", "true");
    client.put(prefix.substring(0, prefix.length() - 1) + "-sibling", "");

    List<String> names = new ArrayList<>();
    String after = null;
    int pages = 0;
    boolean more = true;
    while (more) {
      String query =
          "/?prefix=" + prefix + "&limit=2" + (after == null ? "" : "&start_after=" + after);
      PicoClient.Answer page = client.get(query);
      assertThat(page.status()).as("%s", page).isEqualTo(200);
      JsonNode json = page.json();
      for (JsonNode stream : json.path("streams")) {
        names.add(stream.path("name").asText());
        after = stream.path("name").asText();
      }
      more = json.path("has_more").asBoolean();
      pages++;
    }

    assertThat(names)
        .containsExactly(
            prefix + "a",
            prefix + "b",
            prefix + "c",
            prefix + "c-sealed",
            prefix + "d",
            prefix + "e");
    assertThat(pages).isEqualTo(3);
  }

  @BothVersions
  void aListedStreamCarriesItsDescription(HttpClient.Version version) {
    PicoClient client = client(version);
    String prefix = PicoServer.freshName("list-fields") + "/";
    client.put(prefix + "ttl", "x", "Content-Type", "text/plain", "Pico-TTL", "60");
    client.put(prefix + "plain", "", "Pico-Closed", "true");

    JsonNode streams = client.get("/?prefix=" + prefix).json().path("streams");

    JsonNode plain = streams.get(0);
    assertThat(plain.path("name").asText()).isEqualTo(prefix + "plain");
    assertThat(plain.path("content_type").asText()).isEqualTo("application/octet-stream");
    assertThat(plain.path("closed").asBoolean()).isTrue();
    assertThat(plain.path("ttl").isNull()).isTrue();
    assertThat(plain.path("expires_at").isNull()).isTrue();
    JsonNode ttl = streams.get(1);
    assertThat(ttl.path("start_seq").asLong()).isZero();
    assertThat(ttl.path("next_seq").asLong()).isEqualTo(1);
    assertThat(ttl.path("closed").asBoolean()).isFalse();
    assertThat(ttl.path("ttl").asLong()).isEqualTo(60);
    assertThat(ttl.path("expires_at").asText()).endsWith("Z");
  }

  @BothVersions
  void listParametersAreChecked(HttpClient.Version version) {
    PicoClient client = client(version);

    assertError(client.get("/?limit=0"), 400, "bad_request");
    assertError(client.get("/?limit=1001"), 400, "bad_request");
    assertError(client.get("/?limit=ten"), 400, "bad_request");
    assertThat(client.get("/?limit=1").json().path("streams")).hasSizeLessThanOrEqualTo(1);
  }

  @BothVersions
  void namesAndMethodsAreChecked(HttpClient.Version version) {
    PicoClient client = client(version);

    assertError(client.get("/a//b"), 400, "invalid_stream_name");
    assertError(client.get("/a/%2E%2E/b"), 400, "invalid_stream_name");
    assertError(client.get("/a/"), 400, "invalid_stream_name");
    assertError(client.get("/" + "n".repeat(1100)), 400, "invalid_stream_name");
    PicoClient.Answer patch = client.send("PATCH", "/a", Map.of(), new byte[] {1});
    assertError(patch, 405, "method_not_allowed");
    assertThat(patch.header("allow")).isPresent();
    assertError(client.post("/", "x"), 405, "method_not_allowed");
  }

  @BothVersions
  void pagesOfAllowedOriginsMayCallAndReadThePicoHeaders(HttpClient.Version version) {
    PicoClient client = client(version);
    String page = "http://localhost:5173";

    PicoClient.Answer preflight =
        client.send("OPTIONS", "/any/stream", preflight(page, "DELETE"), new byte[0]);
    PicoClient.Answer missing =
        client.send("GET", PicoServer.freshName("cors"), Map.of("Origin", page), new byte[0]);

    assertThat(preflight.status()).isEqualTo(204);
    assertThat(preflight.header("access-control-allow-origin")).contains(page);
    assertThat(preflight.header("access-control-allow-methods").orElseThrow()).contains("DELETE");
    assertThat(preflight.header("access-control-allow-headers").orElseThrow())
        .contains("Pico-Producer-Id", "Last-Event-ID");
    assertThat(missing.header("access-control-allow-origin")).contains(page);
    assertThat(missing.header("access-control-expose-headers").orElseThrow())
        .contains("Pico-Next-Seq", "ETag");
    assertThat(missing.header("vary")).contains("Origin");
    assertThat(missing.header("access-control-allow-credentials")).isEmpty();
  }

  @BothVersions
  void pagesOfOtherOriginsGetNoAllowance(HttpClient.Version version) {
    PicoClient client = client(version);
    String page = "https://evil.example";

    PicoClient.Answer preflight =
        client.send("OPTIONS", "/any/stream", preflight(page, "DELETE"), new byte[0]);
    PicoClient.Answer read =
        client.send("GET", PicoServer.freshName("cors"), Map.of("Origin", page), new byte[0]);
    PicoClient.Answer plain = client.send("OPTIONS", "/any/stream", Map.of(), new byte[0]);

    PicoClient.Answer append =
        client.send(
            "POST",
            "/any/stream",
            Map.of("Origin", page, "Content-Type", "text/plain"),
            "blind".getBytes(java.nio.charset.StandardCharsets.UTF_8));

    // The preflight lists what the protocol takes but grants nothing: no allowance, no caching.
    assertThat(preflight.status()).isEqualTo(204);
    assertThat(preflight.header("access-control-allow-origin")).isEmpty();
    assertThat(preflight.header("access-control-max-age")).isEmpty();
    JsonNode refused = assertError(append, 403, "origin_not_allowed");
    assertThat(refused.path("message").asText()).contains(page, "--cors-origins");
    assertThat(read.status()).isEqualTo(404);
    assertThat(read.header("access-control-allow-origin")).isEmpty();
    assertThat(read.header("access-control-expose-headers")).isEmpty();
    // An OPTIONS that is no preflight says what the path serves, and grants no origin anything.
    assertThat(plain.status()).isEqualTo(204);
    assertThat(plain.header("allow").orElseThrow()).contains("DELETE");
    assertThat(plain.header("access-control-allow-origin")).isEmpty();
  }

  private static Map<String, String> preflight(String origin, String method) {
    return Map.of("Origin", origin, "Access-Control-Request-Method", method);
  }
}
