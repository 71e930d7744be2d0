package io.picomq.frontend.pico;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.protocol.DecodeException;
import io.picomq.protocol.ReadBatch;
import java.net.http.HttpClient;
import java.util.Base64;
import java.util.List;

/** {@code GET /{stream}} without waiting: positions, caps, formats, ETags. */
class PicoReadTest extends PicoWireTest {

  /** A stream holding {@code count} text records {@code r0, r1, ...}. */
  private static String streamOf(PicoClient client, String hint, int count) {
    String name = PicoServer.freshName(hint);
    client.put(name, "", "Content-Type", "text/plain");
    for (int i = 0; i < count; i++) {
      assertThat(client.post(name, "r" + i).status()).isEqualTo(200);
    }
    return name;
  }

  @BothVersions
  void jsonIsTheDefaultAndMarksBinaryBodies(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = PicoServer.freshName("formats");
    client.put(name, "");
    client.post(name, "text ✓".getBytes(UTF_8));
    client.post(name, new byte[] {(byte) 0xc3, 0x28});

    PicoClient.Answer answer = client.get(name);

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.header("content-type")).contains("application/json");
    JsonNode records = answer.json();
    assertThat(records).hasSize(2);
    assertThat(records.get(0).path("body").asText()).isEqualTo("text ✓");
    assertThat(records.get(0).has("body_b64")).isFalse();
    assertThat(records.get(0).path("headers").isObject()).isTrue();
    assertThat(records.get(1).has("body")).isFalse();
    assertThat(Base64.getDecoder().decode(records.get(1).path("body_b64").asText()))
        .containsExactly(0xc3, 0x28);
  }

  @BothVersions
  void rawConcatenatesBodiesInTheStreamsContentType(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = streamOf(client, "raw", 3);

    PicoClient.Answer raw = client.get(name + "?format=raw");

    assertThat(raw.header("content-type")).contains("text/plain");
    assertThat(raw.text()).isEqualTo("r0r1r2");
    assertThat(raw.seqHeader("pico-next-seq")).isEqualTo(3);
  }

  @BothVersions
  void binaryCarriesSeqsAndTimestamps(HttpClient.Version version) throws DecodeException {
    PicoClient client = client(version);
    String name = streamOf(client, "binary", 2);
    long timestamp = client.get(name).json().get(1).path("timestamp").asLong();

    List<ReadBatch.Entry> records = ReadBatch.decode(client.get(name + "?format=binary").body());

    assertThat(records).extracting(ReadBatch.Entry::seq).containsExactly(0L, 1L);
    assertThat(records.get(1).timestampMillis()).isEqualTo(timestamp);
    assertThat(new String(records.get(1).body(), UTF_8)).isEqualTo("r1");
  }

  @BothVersions
  void aReadStartsAtSeqAndNowIsTheTail(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = streamOf(client, "positions", 4);

    PicoClient.Answer fromTwo = client.get(name + "?seq=2");
    PicoClient.Answer now = client.get(name + "?seq=now");
    PicoClient.Answer atTail = client.get(name + "?seq=4");

    assertThat(fromTwo.json().findValuesAsText("body")).containsExactly("r2", "r3");
    assertThat(fromTwo.header("pico-up-to-date")).contains("true");
    assertThat(now.json()).isEmpty();
    assertThat(now.seqHeader("pico-next-seq")).isEqualTo(4);
    assertThat(now.header("pico-up-to-date")).contains("true");
    assertThat(atTail.json()).isEmpty();
    JsonNode beyond = assertError(client.get(name + "?seq=5"), 400, "seq_beyond_tail");
    assertThat(beyond.path("next_seq").asLong()).isEqualTo(4);
  }

  @BothVersions
  void countAndBytesCapAReadButOneRecordAlwaysComes(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = PicoServer.freshName("caps");
    client.put(name, "");
    for (int i = 0; i < 10; i++) {
      client.post(name, "0123456789");
    }

    PicoClient.Answer three = client.get(name + "?count=3");
    PicoClient.Answer twentyFiveBytes = client.get(name + "?bytes=25&seq=3");
    PicoClient.Answer oneByte = client.get(name + "?bytes=1&seq=9&format=raw");

    assertThat(three.json()).hasSize(3);
    assertThat(three.seqHeader("pico-next-seq")).isEqualTo(3);
    assertThat(three.header("pico-up-to-date")).isEmpty();
    assertThat(twentyFiveBytes.json()).hasSize(2);
    assertThat(twentyFiveBytes.seqHeader("pico-next-seq")).isEqualTo(5);
    assertThat(oneByte.text()).isEqualTo("0123456789");
    assertThat(oneByte.header("pico-up-to-date")).contains("true");
  }

  @BothVersions
  void closedIsReportedOnlyOnceTheEndIsRead(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = streamOf(client, "closed-read", 3);
    client.post(name, "", "Pico-Closed", "true");

    PicoClient.Answer partial = client.get(name + "?count=2");
    PicoClient.Answer rest = client.get(name + "?seq=2");

    assertThat(partial.header("pico-closed")).isEmpty();
    assertThat(rest.header("pico-closed")).contains("true");
    assertThat(rest.header("pico-up-to-date")).contains("true");
  }

  @BothVersions
  void anUnchangedReadRevalidatesWith304(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = streamOf(client, "etag", 2);

    PicoClient.Answer first = client.get(name);
    String etag = first.header("etag").orElseThrow();
    PicoClient.Answer revalidated = client.get(name, "If-None-Match", etag);
    PicoClient.Answer otherFormat = client.get(name + "?format=raw", "If-None-Match", etag);
    client.post(name, "r2");
    PicoClient.Answer afterAppend = client.get(name, "If-None-Match", etag);

    assertThat(revalidated.status()).isEqualTo(304);
    assertThat(revalidated.body()).isEmpty();
    assertThat(revalidated.seqHeader("pico-next-seq")).isEqualTo(2);
    assertThat(otherFormat.status()).isEqualTo(200);
    assertThat(afterAppend.status()).isEqualTo(200);
    assertThat(afterAppend.header("etag")).isNotEqualTo(first.header("etag"));
    assertThat(afterAppend.json()).hasSize(3);
  }

  @BothVersions
  void aRecreatedStreamDoesNotMatchTheOldETag(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = streamOf(client, "etag-recreate", 1);
    String etag = client.get(name).header("etag").orElseThrow();

    client.delete(name);
    client.put(name, "", "Content-Type", "text/plain");
    client.post(name, "other");

    PicoClient.Answer answer = client.get(name, "If-None-Match", etag);
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.json().findValuesAsText("body")).containsExactly("other");
  }

  @BothVersions
  void readsOfUnknownStreamsAndBadParametersAreErrors(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = streamOf(client, "bad-read", 1);

    assertError(client.get(PicoServer.freshName("missing")), 404, "stream_not_found");
    assertError(client.get(name + "?seq=-1"), 400, "bad_request");
    assertError(client.get(name + "?seq=later"), 400, "bad_request");
    assertError(client.get(name + "?seq=1&seq=2"), 400, "bad_request");
    assertError(client.get(name + "?count=0"), 400, "bad_request");
    assertError(client.get(name + "?count=10001"), 400, "bad_request");
    assertError(client.get(name + "?bytes=0"), 400, "bad_request");
    assertError(client.get(name + "?format=xml"), 400, "bad_request");
    assertError(client.get(name + "?live=forever"), 400, "bad_request");
    assertError(client.get(name + "?live=sse&format=binary"), 400, "bad_request");
  }
}
