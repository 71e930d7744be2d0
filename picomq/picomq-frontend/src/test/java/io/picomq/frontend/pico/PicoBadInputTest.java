package io.picomq.frontend.pico;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.frontend.http.StreamNames;
import io.picomq.protocol.AppendBatch;
import io.picomq.stream.Expiry;
import java.net.http.HttpClient;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Bad input of every kind gets a 4xx with a JSON error, never a 5xx, and leaves the stream as it
 * was. The randomized cases draw from one seed, taken from the system property {@code picomq.seed}
 * when set; a failure names it, and rerunning with it replays the run exactly.
 */
class PicoBadInputTest extends PicoWireTest {

  private static final String JSON_BATCH = "application/vnd.picomq.batch+json";
  private static final String BINARY_BATCH = "application/vnd.picomq.batch";

  /** A request that must be refused, and the error code it must get. */
  private record Bad(String why, String body, String error, String... headers) {}

  private static final List<Bad> BAD_APPENDS =
      List.of(
          new Bad("not JSON", "{", "malformed_batch", "Content-Type", JSON_BATCH),
          new Bad("JSON, not a batch", "[1,2]", "malformed_batch", "Content-Type", JSON_BATCH),
          new Bad(
              "records not an array",
              "{\"records\":{}}",
              "malformed_batch",
              "Content-Type",
              JSON_BATCH),
          new Bad(
              "an unknown field",
              "{\"records\":[],\"more\":1}",
              "malformed_batch",
              "Content-Type",
              JSON_BATCH),
          new Bad(
              "a repeated field",
              "{\"records\":[],\"records\":[]}",
              "malformed_batch",
              "Content-Type",
              JSON_BATCH),
          new Bad(
              "trailing JSON",
              "{\"records\":[{\"body\":\"a\"}]} {}",
              "malformed_batch",
              "Content-Type",
              JSON_BATCH),
          new Bad(
              "both bodies",
              "{\"records\":[{\"body\":\"a\",\"body_b64\":\"YQ==\"}]}",
              "malformed_batch",
              "Content-Type",
              JSON_BATCH),
          new Bad(
              "no body",
              "{\"records\":[{\"headers\":{}}]}",
              "malformed_batch",
              "Content-Type",
              JSON_BATCH),
          new Bad(
              "a body that is not a string",
              "{\"records\":[{\"body\":{\"a\":1}}]}",
              "malformed_batch",
              "Content-Type",
              JSON_BATCH),
          new Bad(
              "bad base64",
              "{\"records\":[{\"body_b64\":\"!!\"}]}",
              "malformed_batch",
              "Content-Type",
              JSON_BATCH),
          new Bad(
              "a lone surrogate",
              "{\"records\":[{\"body\":\"\\ud800\"}]}",
              "malformed_batch",
              "Content-Type",
              JSON_BATCH),
          new Bad(
              "a number header",
              "{\"records\":[{\"body\":\"a\",\"headers\":{\"n\":1}}]}",
              "malformed_batch",
              "Content-Type",
              JSON_BATCH),
          new Bad(
              "an empty header name",
              "{\"records\":[{\"body\":\"a\",\"headers\":{\"\":\"v\"}}]}",
              "malformed_batch",
              "Content-Type",
              JSON_BATCH),
          new Bad(
              "a binary batch of the wrong version",
              "\u0002\u0000\u0000\u0000\u0000",
              "malformed_batch",
              "Content-Type",
              BINARY_BATCH),
          new Bad(
              "a binary batch with a lying count",
              "\u0001\u0000\u0000\u0000\u0009",
              "malformed_batch",
              "Content-Type",
              BINARY_BATCH),
          new Bad(
              "a producer seq that is not a number",
              "x",
              "bad_request",
              "Pico-Producer-Id",
              "p",
              "Pico-Producer-Epoch",
              "0",
              "Pico-Producer-Seq",
              "one"),
          new Bad(
              "an empty producer id",
              "x",
              "bad_request",
              "Pico-Producer-Id",
              "",
              "Pico-Producer-Epoch",
              "0",
              "Pico-Producer-Seq",
              "0"),
          new Bad(
              "a huge match seq",
              "x",
              "bad_request",
              "Pico-Match-Seq",
              "123456789012345678901234567890"),
          new Bad("a negative trim seq", "", "bad_request", "Pico-Trim-Seq", "-3"),
          new Bad(
              "trim with close", "", "bad_request", "Pico-Trim-Seq", "0", "Pico-Closed", "true"),
          new Bad("a closed flag that is not a boolean", "x", "bad_request", "Pico-Closed", "1"),
          new Bad("a negative TTL on an append", "x", "bad_request", "Pico-TTL", "-5"),
          new Bad(
              "a TTL past the maximum on an append",
              "x",
              "bad_request",
              "Pico-TTL",
              "999999999999999999"),
          new Bad("garbage expiry on an append", "x", "bad_request", "Pico-Expires-At", "garbage"));

  private static String seeded(PicoClient client, String hint) {
    String name = PicoServer.freshName(hint);
    client.put(name, "", "Content-Type", "text/plain");
    client.post(name, "kept");
    return name;
  }

  @BothVersions
  void everyBadAppendGetsItsErrorAndChangesNothing(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = seeded(client, "bad-appends");

    for (Bad bad : BAD_APPENDS) {
      PicoClient.Answer answer = client.post(name, bad.body().getBytes(UTF_8), bad.headers());
      assertThat(answer.status()).as("%s: %s", bad.why(), answer).isEqualTo(400);
      assertThat(answer.json().path("error").asText()).as(bad.why()).isEqualTo(bad.error());
    }

    assertIntact(client, name);
  }

  @Test
  void damagedBinaryBatchesAreAppendedWholeOrRefusedWith400() {
    PicoClient client = client(HttpClient.Version.HTTP_1_1);
    String name = PicoServer.freshName("fuzz-binary");
    client.put(name, "");
    long seed = seed();
    Random random = new Random(seed);
    for (int run = 0; run < 150; run++) {
      byte[] batch =
          AppendBatch.encode(
              List.of(
                  AppendBatch.Entry.of(Map.of("k" + random.nextInt(9), "v"), new byte[3]),
                  AppendBatch.Entry.of(Map.of(), new byte[random.nextInt(5)])));
      batch[random.nextInt(batch.length)] ^= (byte) (1 + random.nextInt(255));
      long before = client.head(name).seqHeader("pico-next-seq");

      PicoClient.Answer answer = client.post(name, batch, "Content-Type", BINARY_BATCH);

      long after = client.head(name).seqHeader("pico-next-seq");
      String context = "seed " + seed + ", run " + run + ": " + answer;
      if (answer.status() == 200) {
        assertThat(after - before)
            .as(context)
            .isEqualTo(answer.seqHeader("pico-next-seq") - answer.seqHeader("pico-start-seq"));
      } else {
        assertThat(answer.status()).as(context).isEqualTo(400);
        assertThat(answer.json().path("error").asText()).as(context).isEqualTo("malformed_batch");
        assertThat(after).as(context).isEqualTo(before);
      }
    }
  }

  @Test
  void damagedJsonBatchesAreAppendedOrRefusedWith400() {
    PicoClient client = client(HttpClient.Version.HTTP_1_1);
    String name = PicoServer.freshName("fuzz-json");
    client.put(name, "");
    byte[] valid =
        "{\"records\":[{\"body\":\"a\",\"headers\":{\"k\":\"v\"}},{\"body_b64\":\"AAE=\"}]}"
            .getBytes(UTF_8);
    long seed = seed();
    Random random = new Random(seed);
    for (int run = 0; run < 150; run++) {
      byte[] damaged = valid.clone();
      damaged[random.nextInt(damaged.length)] ^= (byte) (1 + random.nextInt(255));

      PicoClient.Answer answer = client.post(name, damaged, "Content-Type", JSON_BATCH);

      String context = "seed " + seed + ", run " + run + ": " + answer;
      assertThat(answer.status()).as(context).isIn(200, 400);
      if (answer.status() == 400) {
        assertThat(answer.json().path("error").asText()).as(context).isNotBlank();
      }
    }
  }

  /** Finding F1 of issue 11: a TTL or expiry past the documented maximum is refused at once. */
  @BothVersions
  void expiriesPastTheMaximumAreRefusedAtCreate(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = PicoServer.freshName("expiry-limits");
    for (String[] headers :
        List.of(
            new String[] {"Pico-TTL", "999999999999999999"},
            new String[] {"Pico-TTL", Long.toString(Expiry.MAX_SECONDS + 1)},
            new String[] {"Pico-TTL", "-1"},
            new String[] {"Pico-TTL", ""},
            new String[] {"Pico-Expires-At", "+999999999-12-31T23:59:59Z"},
            new String[] {"Pico-Expires-At", "2999-01-01T00:00:00Z"},
            new String[] {"Pico-Expires-At", "999999999999999999"},
            new String[] {"Pico-Expires-At", "1970-01-01T00:00:00Z"})) {
      JsonNode error = assertError(client.put(name, "", headers), 400, "bad_request");
      assertThat(error.path("message").asText()).as(headers[1]).contains(headers[0]);
    }
    assertThat(client.head(name).status()).isEqualTo(404);
    assertThat(client.get("/").status()).isEqualTo(200);

    PicoClient.Answer longest = client.put(name, "", "Pico-TTL", Long.toString(Expiry.MAX_SECONDS));
    assertThat(longest.status()).as("%s", longest).isEqualTo(201);
    assertThat(client.get("/").status()).isEqualTo(200);
    assertThat(client.post(name, "x", "Pico-TTL", "60").status()).isEqualTo(200);
  }

  /** Names are at most 1017 bytes (the registry key adds {@code stream/}), and UTF-8. */
  @BothVersions
  void namesPastTheLimitOrNotUtf8AreRefused(HttpClient.Version version) {
    PicoClient client = client(version);
    String longest = "/" + "n".repeat(StreamNames.MAX_BYTES - 1);
    assertThat(client.put(longest, "").status()).isIn(200, 201);
    for (int bytes = StreamNames.MAX_BYTES + 1; bytes <= 1030; bytes++) {
      assertError(client.put("/" + "n".repeat(bytes - 1), ""), 400, "invalid_stream_name");
    }
    for (String name : List.of("/%ff%fe", "/%c0%af", "/a/%ed%a0%80")) {
      assertError(client.put(name, ""), 400, "bad_request");
      assertError(client.get(name), 400, "bad_request");
      assertThat(client.head(name).status()).as(name).isEqualTo(400);
    }
    assertThat(client.delete(longest).status()).isEqualTo(204);
  }

  private static long seed() {
    String given = System.getProperty("picomq.seed");
    return given != null ? Long.parseLong(given) : new Random().nextLong();
  }

  @BothVersions
  void wrongPlacesAndTypesAreRefused(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = seeded(client, "wrong-places");

    assertError(
        client.post(name, "{}", "Content-Type", "application/json"), 409, "content_type_mismatch");
    assertError(
        client.send(
            client
                .request("POST", name, new byte[0])
                .header("Pico-Closed", "true")
                .header("Pico-Closed", "true")
                .build()),
        400,
        "bad_request");
    assertError(client.put(name, "", "Content-Type", "application/json"), 409, "stream_conflict");
    assertError(client.get(name + "?live=sse", "Last-Event-ID", "x"), 400, "bad_request");

    assertIntact(client, name);
  }

  /** The stream still holds exactly its one record and is open. */
  private static void assertIntact(PicoClient client, String name) {
    PicoClient.Answer head = client.head(name);
    assertThat(head.seqHeader("pico-next-seq")).isEqualTo(1);
    assertThat(head.header("pico-closed")).isEmpty();
    assertThat(client.get(name + "?format=raw").text()).isEqualTo("kept");
  }
}
