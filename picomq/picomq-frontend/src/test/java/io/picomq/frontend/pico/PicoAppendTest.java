package io.picomq.frontend.pico;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.protocol.AppendBatch;
import io.picomq.protocol.DecodeException;
import io.picomq.protocol.ReadBatch;
import java.net.http.HttpClient;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** {@code POST /{stream}}: records, batches, producers, conditions, sealing and trimming. */
class PicoAppendTest extends PicoWireTest {

  private static final String JSON_BATCH = "application/vnd.picomq.batch+json";
  private static final String BINARY_BATCH = "application/vnd.picomq.batch";

  private static String textStream(PicoClient client, String hint) {
    String name = PicoServer.freshName(hint);
    assertThat(client.put(name, "", "Content-Type", "text/plain").status()).isEqualTo(201);
    return name;
  }

  @BothVersions
  void aRecordGetsTheNextSeqAndATimestamp(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = textStream(client, "single");
    long before = Instant.now().toEpochMilli();

    PicoClient.Answer first = client.post(name, "a", "Content-Type", "text/plain");
    PicoClient.Answer second = client.post(name, "b", "Content-Type", "text/plain; charset=utf-8");

    assertThat(first.status()).isEqualTo(200);
    assertThat(first.seqHeader("pico-start-seq")).isZero();
    assertThat(first.seqHeader("pico-next-seq")).isEqualTo(1);
    assertThat(first.seqHeader("pico-timestamp")).isBetween(before, Instant.now().toEpochMilli());
    assertThat(second.seqHeader("pico-start-seq")).isEqualTo(1);
    assertThat(second.seqHeader("pico-next-seq")).isEqualTo(2);
    assertThat(second.seqHeader("pico-timestamp"))
        .isGreaterThanOrEqualTo(first.seqHeader("pico-timestamp"));
    JsonNode records = client.get(name).json();
    assertThat(records.get(1).path("timestamp").asLong())
        .isEqualTo(second.seqHeader("pico-timestamp"));
  }

  @BothVersions
  void aBodyOfAnotherContentTypeIsRefused(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = textStream(client, "mismatch");

    JsonNode error =
        assertError(
            client.post(name, "{}", "Content-Type", "application/json"),
            409,
            "content_type_mismatch");

    assertThat(error.path("message").asText()).contains("text/plain");
    // Without a Content-Type, the body is taken to be in the stream's type.
    assertThat(client.post(name, "plain").status()).isEqualTo(200);
    assertThat(client.head(name).seqHeader("pico-next-seq")).isEqualTo(1);
  }

  @BothVersions
  void aJsonBatchTakesConsecutiveSeqsOneTimestampAndKeepsHeaders(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = textStream(client, "json-batch");
    String batch =
        """
        {"records": [
          {"body": "one", "headers": {"kind": "greeting", "lang": "en"}},
          {"body_b64": "AAH/"},
          {"body": "three ✓"}
        ]}""";

    PicoClient.Answer answer = client.post(name, batch, "Content-Type", JSON_BATCH);

    assertThat(answer.status()).as("%s", answer).isEqualTo(200);
    assertThat(answer.seqHeader("pico-start-seq")).isZero();
    assertThat(answer.seqHeader("pico-next-seq")).isEqualTo(3);
    JsonNode records = client.get(name).json();
    assertThat(records).hasSize(3);
    for (int i = 0; i < 3; i++) {
      assertThat(records.get(i).path("seq").asLong()).isEqualTo(i);
      assertThat(records.get(i).path("timestamp").asLong())
          .isEqualTo(answer.seqHeader("pico-timestamp"));
    }
    assertThat(records.get(0).path("headers").properties())
        .extracting(Map.Entry::getKey)
        .containsExactly("kind", "lang");
    assertThat(records.get(0).path("headers").path("lang").asText()).isEqualTo("en");
    assertThat(records.get(0).path("body").asText()).isEqualTo("one");
    assertThat(records.get(1).has("body")).isFalse();
    assertThat(Base64.getDecoder().decode(records.get(1).path("body_b64").asText()))
        .containsExactly(0, 1, 0xff);
    assertThat(records.get(2).path("body").asText()).isEqualTo("three ✓");
  }

  @BothVersions
  void aBinaryBatchRoundTripsThroughABinaryRead(HttpClient.Version version) throws DecodeException {
    PicoClient client = client(version);
    String name = textStream(client, "binary-batch");
    List<AppendBatch.Entry> sent =
        List.of(
            AppendBatch.Entry.of(Map.of("b", "2", "a", "1"), "x".getBytes(UTF_8)),
            AppendBatch.Entry.of(Map.of(), new byte[] {0, (byte) 0x80}),
            AppendBatch.Entry.of(Map.of("empty", ""), new byte[0]));

    PicoClient.Answer answer =
        client.post(name, AppendBatch.encode(sent), "Content-Type", BINARY_BATCH);

    assertThat(answer.status()).as("%s", answer).isEqualTo(200);
    PicoClient.Answer read = client.get(name + "?format=binary");
    assertThat(read.header("content-type")).contains(BINARY_BATCH);
    List<ReadBatch.Entry> got = ReadBatch.decode(read.body());
    long timestamp = answer.seqHeader("pico-timestamp");
    assertThat(got)
        .containsExactly(
            ReadBatch.Entry.of(0, timestamp, sent.get(0).headers(), sent.get(0).body()),
            ReadBatch.Entry.of(1, timestamp, sent.get(1).headers(), sent.get(1).body()),
            ReadBatch.Entry.of(2, timestamp, sent.get(2).headers(), sent.get(2).body()));
  }

  @BothVersions
  void aProducerIsDeduplicatedFencedAndToldAboutGaps(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = textStream(client, "producer");

    PicoClient.Answer first = produce(client, name, "p1", 0, 0, "a");
    PicoClient.Answer duplicate = produce(client, name, "p1", 0, 0, "a again");
    PicoClient.Answer gap = produce(client, name, "p1", 0, 2, "c");
    PicoClient.Answer next = produce(client, name, "p1", 0, 1, "b");
    PicoClient.Answer newEpoch = produce(client, name, "p1", 1, 0, "d");
    PicoClient.Answer zombie = produce(client, name, "p1", 0, 2, "zombie");
    PicoClient.Answer epochNotAtZero = produce(client, name, "p1", 2, 5, "e");
    PicoClient.Answer otherProducer = produce(client, name, "p2", 0, 0, "f");

    assertThat(first.status()).isEqualTo(200);
    assertThat(first.header("pico-producer-seq")).contains("0");
    assertThat(duplicate.status()).isEqualTo(204);
    assertThat(duplicate.seqHeader("pico-next-seq")).isEqualTo(1);
    assertThat(duplicate.header("pico-producer-seq")).contains("0");
    assertError(gap, 409, "producer_seq_gap");
    assertThat(gap.header("pico-expected-seq")).contains("1");
    assertThat(gap.header("pico-received-seq")).contains("2");
    assertThat(next.status()).isEqualTo(200);
    assertThat(newEpoch.status()).isEqualTo(200);
    assertError(zombie, 409, "stale_producer_epoch");
    assertThat(zombie.header("pico-producer-epoch")).contains("1");
    assertError(epochNotAtZero, 409, "producer_seq_gap");
    assertThat(epochNotAtZero.header("pico-expected-seq")).contains("0");
    assertThat(epochNotAtZero.header("pico-received-seq")).contains("5");
    assertThat(otherProducer.status()).isEqualTo(200);
    JsonNode records = client.get(name).json();
    assertThat(records.findValuesAsText("body")).containsExactly("a", "b", "d", "f");
  }

  @BothVersions
  void producerHeadersGoTogether(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = textStream(client, "producer-partial");

    assertError(
        client.post(name, "x", "Pico-Producer-Id", "p", "Pico-Producer-Epoch", "0"),
        400,
        "bad_request");
    assertError(
        client.post(
            name,
            "x",
            "Pico-Producer-Id",
            "p",
            "Pico-Producer-Epoch",
            "0",
            "Pico-Producer-Seq",
            "-1"),
        400,
        "bad_request");
    assertThat(client.head(name).seqHeader("pico-next-seq")).isZero();
  }

  @BothVersions
  void aConditionalAppendNeedsTheTailWhereItSaysItIs(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = textStream(client, "match");

    PicoClient.Answer atTail = client.post(name, "a", "Pico-Match-Seq", "0");
    PicoClient.Answer stale = client.post(name, "b", "Pico-Match-Seq", "0");

    assertThat(atTail.status()).isEqualTo(200);
    JsonNode error = assertError(stale, 409, "seq_mismatch");
    assertThat(error.path("next_seq").asLong()).isEqualTo(1);
    assertThat(stale.seqHeader("pico-next-seq")).isEqualTo(1);
    assertThat(client.post(name, "b", "Pico-Match-Seq", "1").status()).isEqualTo(200);
  }

  @BothVersions
  void sealingWithOrWithoutRecordsEndsTheStream(HttpClient.Version version) {
    PicoClient client = client(version);
    String withRecord = textStream(client, "seal-with");
    String closeOnly = textStream(client, "seal-only");

    PicoClient.Answer last = client.post(withRecord, "last", "Pico-Closed", "true");
    PicoClient.Answer sealed = client.post(closeOnly, "", "Pico-Closed", "true");
    PicoClient.Answer sealedAgain = client.post(closeOnly, "", "Pico-Closed", "true");

    assertThat(last.status()).isEqualTo(200);
    assertThat(last.header("pico-closed")).contains("true");
    assertThat(last.seqHeader("pico-next-seq")).isEqualTo(1);
    assertThat(sealed.status()).isEqualTo(200);
    assertThat(sealed.header("pico-closed")).contains("true");
    assertThat(sealedAgain.status()).isEqualTo(200);
    PicoClient.Answer refused = client.post(withRecord, "more");
    assertThat(assertError(refused, 409, "stream_closed").path("next_seq").asLong()).isEqualTo(1);
    assertThat(refused.header("pico-closed")).contains("true");
    assertThat(client.head(closeOnly).header("pico-closed")).contains("true");
  }

  @BothVersions
  void trimmingMovesTheStartAndReadsBelowItBeginThere(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = textStream(client, "trim");
    for (int i = 0; i < 5; i++) {
      client.post(name, "r" + i);
    }

    PicoClient.Answer trimmed = client.post(name, "", "Pico-Trim-Seq", "3");

    assertThat(trimmed.status()).isEqualTo(200);
    assertThat(trimmed.seqHeader("pico-start-seq")).isEqualTo(3);
    assertThat(trimmed.seqHeader("pico-next-seq")).isEqualTo(5);
    assertThat(client.head(name).seqHeader("pico-start-seq")).isEqualTo(3);
    PicoClient.Answer read = client.get(name + "?seq=1");
    assertThat(read.seqHeader("pico-start-seq")).isEqualTo(3);
    assertThat(read.json().findValuesAsText("body")).containsExactly("r3", "r4");
    assertThat(read.json().get(0).path("seq").asLong()).isEqualTo(3);
    JsonNode beyond =
        assertError(client.post(name, "", "Pico-Trim-Seq", "9"), 400, "trim_beyond_tail");
    assertThat(beyond.path("next_seq").asLong()).isEqualTo(5);
    assertError(client.post(name, "body", "Pico-Trim-Seq", "4"), 400, "bad_request");
    assertThat(client.head(name).seqHeader("pico-start-seq")).isEqualTo(3);
  }

  @BothVersions
  void appendsToUnknownStreamsAndEmptyAppendsAreRefused(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = textStream(client, "empty-append");

    assertError(client.post(PicoServer.freshName("missing"), "x"), 404, "stream_not_found");
    assertError(client.post(name, ""), 400, "bad_request");
    assertError(
        client.post(name, "{\"records\": []}", "Content-Type", JSON_BATCH), 400, "bad_request");
    assertThat(
            client
                .post(name, "{\"records\": []}", "Content-Type", JSON_BATCH, "Pico-Closed", "true")
                .status())
        .isEqualTo(200);
  }

  private static PicoClient.Answer produce(
      PicoClient client, String name, String id, long epoch, long seq, String body) {
    return client.post(
        name,
        body,
        "Pico-Producer-Id",
        id,
        "Pico-Producer-Epoch",
        Long.toString(epoch),
        "Pico-Producer-Seq",
        Long.toString(seq));
  }
}
