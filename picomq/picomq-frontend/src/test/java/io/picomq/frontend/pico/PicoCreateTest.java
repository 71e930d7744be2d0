package io.picomq.frontend.pico;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/** {@code PUT /{stream}}: create, idempotence, content type, expiry, sealing, first record. */
class PicoCreateTest extends PicoWireTest {

  @BothVersions
  void createsThenAnswersExistsThenConflicts(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = PicoServer.freshName("create");

    PicoClient.Answer created = client.put(name, "", "Content-Type", "text/plain");
    PicoClient.Answer again = client.put(name, "", "Content-Type", "text/plain; charset=utf-8");
    PicoClient.Answer other = client.put(name, "", "Content-Type", "application/json");

    assertThat(created.version()).isEqualTo(version);
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.seqHeader("pico-next-seq")).isZero();
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.seqHeader("pico-next-seq")).isZero();
    assertThat(assertError(other, 409, "stream_conflict").path("message").asText())
        .contains("text/plain");
  }

  @BothVersions
  void theContentTypeDefaultsToOctetStream(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = PicoServer.freshName("default-type");

    assertThat(client.put(name, "").status()).isEqualTo(201);

    assertThat(client.head(name).header("content-type")).contains("application/octet-stream");
    assertThat(client.put(name, "", "Content-Type", "application/octet-stream").status())
        .isEqualTo(200);
  }

  @BothVersions
  void aBodyBecomesTheFirstRecordOnlyOnTheFirstCreate(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = PicoServer.freshName("first-record");

    PicoClient.Answer created = client.put(name, "hello", "Content-Type", "text/plain");
    PicoClient.Answer repeated = client.put(name, "hello", "Content-Type", "text/plain");

    assertThat(created.seqHeader("pico-next-seq")).isEqualTo(1);
    assertThat(repeated.status()).isEqualTo(200);
    assertThat(repeated.seqHeader("pico-next-seq")).isEqualTo(1);
    JsonNode records = client.get(name).json();
    assertThat(records).hasSize(1);
    assertThat(records.get(0).path("seq").asLong()).isZero();
    assertThat(records.get(0).path("body").asText()).isEqualTo("hello");
  }

  @BothVersions
  void aTtlSlidesAndIsReported(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = PicoServer.freshName("ttl");
    Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);

    assertThat(client.put(name, "", "Pico-TTL", "60").status()).isEqualTo(201);

    PicoClient.Answer head = client.head(name);
    assertThat(head.header("pico-ttl")).contains("60");
    Instant expiresAt = Instant.parse(head.header("pico-expires-at").orElseThrow());
    assertThat(expiresAt).isBetween(before.plusSeconds(60), Instant.now().plusSeconds(60));
    assertThat(client.put(name, "", "Pico-TTL", "60").status()).isEqualTo(200);
    assertError(client.put(name, "", "Pico-TTL", "61"), 409, "stream_conflict");
  }

  @BothVersions
  void expiresAtTakesRfc3339OrUnixMillis(HttpClient.Version version) {
    PicoClient client = client(version);
    Instant at = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
    String rfc = PicoServer.freshName("expires-rfc");
    String millis = PicoServer.freshName("expires-ms");

    assertThat(client.put(rfc, "", "Pico-Expires-At", at.toString()).status()).isEqualTo(201);
    assertThat(client.put(millis, "", "Pico-Expires-At", Long.toString(at.toEpochMilli())).status())
        .isEqualTo(201);

    assertThat(client.head(rfc).header("pico-expires-at")).contains(at.toString());
    assertThat(client.head(millis).header("pico-expires-at")).contains(at.toString());
    assertThat(client.head(rfc).header("pico-ttl")).isEmpty();
    // The same instant written with an offset is the same configuration.
    String withOffset = at.atOffset(ZoneOffset.ofHours(2)).toString();
    assertThat(client.put(rfc, "", "Pico-Expires-At", withOffset).status()).isEqualTo(200);
  }

  @BothVersions
  void aStreamCreatedClosedTakesNoAppends(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = PicoServer.freshName("created-closed");

    PicoClient.Answer created =
        client.put(name, "only", "Content-Type", "text/plain", "Pico-Closed", "true");

    assertThat(created.status()).isEqualTo(201);
    assertThat(created.header("pico-closed")).contains("true");
    assertThat(client.head(name).header("pico-closed")).contains("true");
    JsonNode error = assertError(client.post(name, "more"), 409, "stream_closed");
    assertThat(error.path("next_seq").asLong()).isEqualTo(1);
  }

  @BothVersions
  void malformedCreatesAreRefusedAndCreateNothing(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = PicoServer.freshName("bad-create");
    String past = Instant.now().minusSeconds(10).toString();

    assertError(client.put(name, "", "Pico-TTL", "60", "Pico-Expires-At", "1"), 400, "bad_request");
    assertError(client.put(name, "", "Pico-TTL", "-1"), 400, "bad_request");
    assertError(client.put(name, "", "Pico-TTL", "1e3"), 400, "bad_request");
    assertError(client.put(name, "", "Pico-TTL", "99999999999999999999"), 400, "bad_request");
    assertError(client.put(name, "", "Pico-Expires-At", "tomorrow"), 400, "bad_request");
    assertError(client.put(name, "", "Pico-Expires-At", past), 400, "bad_request");
    assertError(client.put(name, "", "Pico-Closed", "yes"), 400, "bad_request");
    assertError(client.put(name, "", "Content-Type", "nonsense"), 400, "bad_request");
    assertError(
        client.put(name, "", "Content-Type", "application/vnd.picomq.batch+json"),
        400,
        "bad_request");

    assertThat(client.head(name).status()).isEqualTo(404);
  }
}
