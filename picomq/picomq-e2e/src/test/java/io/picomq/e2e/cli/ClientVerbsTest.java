package io.picomq.e2e.cli;

import static io.picomq.e2e.cli.PicoCli.at;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.e2e.ServerProcess;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The client verbs through {@code bin/pico} against a real {@code pico serve} (Pico protocol). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientVerbsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private ServerProcess server;
  private PicoCli pico;
  private URI endpoint;

  @BeforeAll
  void startServer() {
    server = ServerProcess.start(dir.resolve("server"));
    endpoint = server.endpoint();
    pico = new PicoCli(dir.resolve("config.json"));
  }

  @AfterAll
  void stopServer() {
    server.close();
  }

  @Test
  void tenThousandLinesGoInThroughAppendAndComeBackByteExact() {
    // Lines with UTF-8, a carriage return, tabs and an empty line: every byte must survive.
    ByteArrayOutputStream input = new ByteArrayOutputStream();
    for (int i = 0; i < 10_000; i++) {
      String line =
          switch (i % 5) {
            case 0 -> "line " + i;
            case 1 -> "zürich ✓ " + i + "\t tab";
            case 2 -> "crlf " + i + "\r";
            case 3 -> i == 3 ? "" : "{\"n\": " + i + "}";
            default -> "  spaced  " + i + "  ";
          };
      input.writeBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
    }
    byte[] lines = input.toByteArray();

    assertOk(pico.run(at(endpoint, "create", "/cli/lines", "--content-type", "text/plain")));
    PicoCli.Result appended =
        pico.run(lines, at(endpoint, "append", "/cli/lines", "--batch", "100"));
    assertOk(appended);
    assertThat(appended.stderr()).contains("appended 10000 records").contains("100 requests");

    PicoCli.Result read = pico.run(at(endpoint, "read", "/cli/lines"));
    assertOk(read);
    assertThat(read.stdout()).isEqualTo(lines);

    PicoCli.Result page = pico.run(at(endpoint, "read", "cli/lines", "--seq", "9998", "-n", "1"));
    assertThat(page.out()).isEqualTo("{\"n\": 9998}\n");
  }

  @Test
  void readJsonGivesOneObjectPerRecordWithSeqsAndBase64ForBinaryBodies() throws Exception {
    assertOk(pico.run(at(endpoint, "create", "/cli/json")));
    byte[] input = {'a', '\n', (byte) 0xff, (byte) 0xfe, '\n'};
    assertOk(pico.run(input, at(endpoint, "append", "/cli/json")));

    PicoCli.Result read = pico.run(at(endpoint, "read", "/cli/json", "--format", "json"));
    assertOk(read);
    List<String> lines = read.out().lines().toList();
    assertThat(lines).hasSize(2);
    JsonNode first = JSON.readTree(lines.get(0));
    JsonNode second = JSON.readTree(lines.get(1));
    assertThat(first.path("seq").asLong()).isZero();
    assertThat(first.path("body").asText()).isEqualTo("a");
    assertThat(first.path("timestamp").asLong()).isPositive();
    assertThat(second.path("seq").asLong()).isEqualTo(1);
    assertThat(second.path("body_b64").asText()).isEqualTo("//4=");
  }

  @Test
  void wholeAppendsAllOfStandardInputAsOneRecord() {
    assertOk(pico.run(at(endpoint, "create", "/cli/whole")));
    byte[] file = "first line\nsecond line\nno newline at the end".getBytes(StandardCharsets.UTF_8);
    assertOk(pico.run(file, at(endpoint, "append", "/cli/whole", "--whole")));

    PicoCli.Result raw = pico.run(at(endpoint, "read", "/cli/whole", "--format", "raw"));
    assertThat(raw.stdout()).isEqualTo(file);
    assertThat(headField(pico.run(at(endpoint, "head", "/cli/whole")), "next-seq")).isEqualTo("1");
  }

  @Test
  void tailFollowPrintsALaterAppendAndEndsWhenTheStreamIsSealed() throws Exception {
    follow("/cli/live", "long-poll");
  }

  @Test
  void tailFollowOverServerSentEvents() throws Exception {
    follow("/cli/live-sse", "sse");
  }

  private void follow(String stream, String live) throws Exception {
    assertOk(pico.run(at(endpoint, "create", stream, "--content-type", "text/plain")));
    assertOk(pico.run(bytes("before\n"), at(endpoint, "append", stream)));

    try (Follower tail =
        new Follower(pico.start(at(endpoint, "tail", "-f", stream, "--live", live)))) {
      assertThat(tail.nextLine()).isEqualTo("before");

      assertOk(pico.run(bytes("after\n"), at(endpoint, "append", stream)));
      assertThat(tail.nextLine()).isEqualTo("after");

      assertOk(pico.run(at(endpoint, "close", stream)));
      assertThat(tail.awaitExit()).isZero();
      assertThat(tail.pending()).isZero();
    }
  }

  @Test
  void tailWithoutFollowPrintsTheLastRecords() {
    assertOk(pico.run(at(endpoint, "create", "/cli/last")));
    assertOk(pico.run(bytes("1\n2\n3\n4\n5\n"), at(endpoint, "append", "/cli/last")));

    assertThat(pico.run(at(endpoint, "tail", "/cli/last", "-n", "2")).out()).isEqualTo("4\n5\n");
    assertThat(pico.run(at(endpoint, "tail", "/cli/last", "--seq", "1")).out())
        .isEqualTo("2\n3\n4\n5\n");
  }

  @Test
  void headLsTrimCloseAndDeleteDoWhatTheySay() throws Exception {
    assertOk(
        pico.run(
            at(endpoint, "create", "/cli/ops/a", "--content-type", "text/plain", "--ttl", "1h")));
    assertOk(pico.run(at(endpoint, "create", "/cli/ops/b")));
    assertOk(
        pico.run(bytes("0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n"), at(endpoint, "append", "/cli/ops/a")));

    PicoCli.Result head = pico.run(at(endpoint, "head", "/cli/ops/a"));
    assertOk(head);
    assertThat(headField(head, "content-type")).isEqualTo("text/plain");
    assertThat(headField(head, "next-seq")).isEqualTo("10");
    assertThat(headField(head, "ttl")).isEqualTo("3600s");
    JsonNode json = JSON.readTree(pico.run(at(endpoint, "head", "/cli/ops/a", "--json")).out());
    assertThat(json.path("next_seq").asLong()).isEqualTo(10);
    assertThat(json.path("closed").asBoolean()).isFalse();

    assertThat(pico.run(at(endpoint, "ls", "--prefix", "/cli/ops/")).out())
        .isEqualTo("/cli/ops/a\n/cli/ops/b\n");
    assertThat(pico.run(at(endpoint, "ls", "--prefix", "/cli/ops/", "--limit", "1")).out())
        .isEqualTo("/cli/ops/a\n");

    assertOk(pico.run(at(endpoint, "trim", "/cli/ops/a", "--seq", "7")));
    assertThat(headField(pico.run(at(endpoint, "head", "/cli/ops/a")), "start-seq")).isEqualTo("7");
    assertThat(pico.run(at(endpoint, "read", "/cli/ops/a", "--seq", "7")).out())
        .isEqualTo("7\n8\n9\n");

    assertOk(pico.run(at(endpoint, "close", "/cli/ops/a")));
    assertThat(headField(pico.run(at(endpoint, "head", "/cli/ops/a")), "closed")).isEqualTo("true");
    PicoCli.Result sealed = pico.run(bytes("late\n"), at(endpoint, "append", "/cli/ops/a"));
    assertThat(sealed.exitCode()).isEqualTo(1);
    assertThat(sealed.errLines())
        .singleElement()
        .asString()
        .startsWith("pico: ")
        .endsWith("(stream_closed)");

    assertOk(pico.run(at(endpoint, "delete", "/cli/ops/b")));
    assertThat(pico.run(at(endpoint, "head", "/cli/ops/b")).exitCode()).isEqualTo(3);
    assertThat(pico.run(at(endpoint, "ls", "--prefix", "/cli/ops/")).out())
        .isEqualTo("/cli/ops/a\n");
  }

  @Test
  void http2SpeaksTheSameProtocol() {
    assertOk(pico.run(at(endpoint, "--http2", "create", "/cli/h2")));
    assertOk(pico.run(bytes("over h2\n"), at(endpoint, "--http2", "append", "/cli/h2")));
    assertThat(pico.run(at(endpoint, "read", "/cli/h2", "--http2")).out()).isEqualTo("over h2\n");
  }

  @Test
  void producerOptionsMakeARerunOfTheSameInputADuplicate() {
    assertOk(pico.run(at(endpoint, "create", "/cli/producer")));
    byte[] input = bytes("a\nb\nc\n");
    String[] args =
        at(endpoint, "append", "/cli/producer", "--producer-id", "loader-1", "--batch", "2");
    assertOk(pico.run(input, args));
    PicoCli.Result again = pico.run(input, args);
    assertOk(again);
    assertThat(again.stderr()).contains("already appended");
    assertThat(pico.run(at(endpoint, "read", "/cli/producer")).out()).isEqualTo("a\nb\nc\n");
  }

  private static String headField(PicoCli.Result head, String field) {
    return head.out()
        .lines()
        .filter(line -> line.startsWith(field + " "))
        .map(line -> line.substring(field.length()).strip())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + field + " in\n" + head.out()));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static void assertOk(PicoCli.Result result) {
    assertThat(result.exitCode()).as("%s", result).isZero();
  }
}
