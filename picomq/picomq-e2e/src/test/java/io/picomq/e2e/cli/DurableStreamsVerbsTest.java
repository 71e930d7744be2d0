package io.picomq.e2e.cli;

import static io.picomq.e2e.cli.ClientVerbsTest.assertOk;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.e2e.ServerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The client verbs against a server speaking Durable Streams ({@code --protocol ds}). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DurableStreamsVerbsTest {
  @TempDir static Path dir;
  private ServerProcess server;
  private PicoCli pico;

  @BeforeAll
  void startServer() {
    server = ServerProcess.startWith(dir.resolve("server"), List.of("--protocol", "ds"), List.of());
    // Settings through the variables this time.
    pico =
        new PicoCli(dir.resolve("config.json"))
            .withEnv("PICO_ENDPOINT", server.endpoint().toString())
            .withEnv("PICO_PROTOCOL", "ds");
  }

  @AfterAll
  void stopServer() {
    server.close();
  }

  @Test
  void aTextStreamReadsBackExactlyTheBytesAppended() {
    StringBuilder input = new StringBuilder();
    for (int i = 0; i < 2_000; i++) {
      input.append("ds line ").append(i).append(i % 7 == 0 ? " ✓" : "").append('\n');
    }
    byte[] lines = input.toString().getBytes(StandardCharsets.UTF_8);
    assertOk(pico.run("create", "/ds/text", "--content-type", "text/plain"));
    assertOk(pico.run(lines, "append", "/ds/text", "--batch", "100"));

    PicoCli.Result read = pico.run("read", "/ds/text");
    assertOk(read);
    assertThat(read.stdout()).isEqualTo(lines);
  }

  @Test
  void aJsonStreamTakesOneMessagePerLine() {
    assertOk(pico.run("create", "/ds/json", "--content-type", "application/json"));
    byte[] messages = "{\"a\":1}\n[1,2]\n\"x\"\n".getBytes(StandardCharsets.UTF_8);
    assertOk(pico.run(messages, "append", "/ds/json"));
    assertThat(pico.run("read", "/ds/json").out()).isEqualTo("{\"a\":1}\n[1,2]\n\"x\"\n");
  }

  @Test
  void tailFollowPrintsLaterAppendsUntilTheStreamIsSealed() throws Exception {
    assertOk(pico.run("create", "/ds/live", "--content-type", "text/plain"));
    assertOk(pico.run("before\n".getBytes(StandardCharsets.UTF_8), "append", "/ds/live"));
    try (Follower tail = new Follower(pico.start("tail", "-f", "/ds/live"))) {
      assertThat(tail.nextLine()).isEqualTo("before");
      assertOk(pico.run("after\n".getBytes(StandardCharsets.UTF_8), "append", "/ds/live"));
      assertThat(tail.nextLine()).isEqualTo("after");
      assertOk(pico.run("close", "/ds/live"));
      assertThat(tail.awaitExit()).isZero();
    }
  }

  @Test
  void headCloseAndDeleteWork() {
    assertOk(pico.run("create", "/ds/ops", "--content-type", "text/plain"));
    assertOk(pico.run("a\nb\n".getBytes(StandardCharsets.UTF_8), "append", "/ds/ops"));
    assertThat(pico.run("head", "/ds/ops").out()).contains("next-seq      2");
    assertOk(pico.run("close", "/ds/ops"));
    assertThat(pico.run("head", "/ds/ops").out()).contains("closed        true");
    assertOk(pico.run("delete", "/ds/ops"));
    assertThat(pico.run("head", "/ds/ops").exitCode()).isEqualTo(3);
  }

  @Test
  void lsAndTrimArePicoOnlyAndSaySo() {
    PicoCli.Result ls = pico.run("ls");
    assertThat(ls.exitCode()).isEqualTo(2);
    assertThat(ls.errLines()).singleElement().asString().startsWith("pico: ls is Pico-only");

    PicoCli.Result trim = pico.run("trim", "/ds/text", "--seq", "1");
    assertThat(trim.exitCode()).isEqualTo(2);
    assertThat(trim.errLines()).singleElement().asString().startsWith("pico: trim is Pico-only");
  }
}
