package io.picomq.e2e.cli;

import static io.picomq.e2e.cli.ClientVerbsTest.assertOk;
import static io.picomq.e2e.cli.PicoCli.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.client.CreateOptions;
import io.picomq.client.ForbiddenException;
import io.picomq.client.PicoClient;
import io.picomq.client.ReadRequest;
import io.picomq.client.Record;
import io.picomq.client.UnauthorizedException;
import io.picomq.e2e.ServerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens as an operator and an application use them, end to end: a root token made offline by
 * {@code pico token new}, a node started with it and access control on, a narrower producer token
 * issued with {@code pico admin token issue}, used by the CLI and the SDK, refused where its scope
 * ends, and revoked.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TokenVerbsTest {
  @TempDir static Path dir;
  private ServerProcess server;
  private PicoCli pico;
  private String root;

  @BeforeAll
  void startServer() {
    pico = new PicoCli(dir.resolve("config.json"));
    PicoCli.Result made = pico.run("token", "new");
    assertOk(made);
    root = made.out().strip();
    server =
        ServerProcess.startWith(
            dir.resolve("server"),
            Map.of("PICO_ROOT_TOKEN", root),
            List.of(),
            List.of("--access-control"));
  }

  @AfterAll
  void stopServer() {
    server.close();
  }

  @Test
  void aProducerTokenAppendsToItsStreamsAndNothingElse() throws Exception {
    PicoCli admin =
        pico.withEnv("PICO_ADMIN_ENDPOINT", server.adminEndpoint().toString())
            .withEnv("PICO_TOKEN", root);
    PicoCli.Result issued =
        admin.run(
            "admin",
            "token",
            "issue",
            "--streams",
            "app/*",
            "--operations",
            "create,append",
            "--audiences",
            "pico",
            "--label",
            "producer");
    assertOk(issued);
    String producer = issued.out().strip();
    Path tokenFile = dir.resolve("producer.token");
    Files.writeString(tokenFile, producer + "\n");

    // The CLI: the token from a file, the stream inside its scope.
    PicoCli app = pico.withEnv("PICO_TOKEN_FILE", tokenFile.toString());
    assertOk(app.run(at(server.endpoint(), "create", "/app/orders")));
    assertOk(
        app.run(
            "one\n".getBytes(StandardCharsets.UTF_8),
            at(server.endpoint(), "append", "/app/orders")));
    PicoCli.Result read = app.run(at(server.endpoint(), "read", "/app/orders"));
    assertThat(read.exitCode()).as("%s", read).isEqualTo(6);
    assertThat(read.errLines()).hasSize(1);
    assertThat(read.stderr()).doesNotContain(producer.substring(producer.indexOf('.') + 1));
    PicoCli.Result elsewhere = app.run(at(server.endpoint(), "create", "/other"));
    assertThat(elsewhere.exitCode()).as("%s", elsewhere).isEqualTo(6);
    PicoCli.Result anonymous = pico.run(at(server.endpoint(), "read", "/app/orders"));
    assertThat(anonymous.exitCode()).as("%s", anonymous).isEqualTo(5);

    // The SDK with the same token; the root token reads what it wrote.
    try (PicoClient client =
            PicoClient.builder().endpoint(server.endpoint()).token(producer).build();
        PicoClient reader = PicoClient.builder().endpoint(server.endpoint()).token(root).build()) {
      client.append("/app/orders", List.of(Record.of("two".getBytes(StandardCharsets.UTF_8))));
      assertThatThrownBy(() -> client.read("/app/orders", ReadRequest.from(0)))
          .isInstanceOf(ForbiddenException.class);
      assertThat(reader.read("/app/orders", ReadRequest.from(0)).records())
          .extracting(r -> new String(r.body(), StandardCharsets.UTF_8))
          .containsExactly("one", "two");

      // Listed without its secret, then revoked: the next request with it is a 401.
      PicoCli.Result listed = admin.run("admin", "token", "list");
      assertOk(listed);
      String id = producer.substring(0, producer.indexOf('.'));
      assertThat(listed.out()).contains(id, "producer").doesNotContain(producer);
      assertOk(admin.run("admin", "token", "revoke", id));
      assertThatThrownBy(
              () ->
                  client.append(
                      "/app/orders", List.of(Record.of("three".getBytes(StandardCharsets.UTF_8)))))
          .isInstanceOf(UnauthorizedException.class);
      PicoCli.Result revoked =
          app.run(
              "three\n".getBytes(StandardCharsets.UTF_8),
              at(server.endpoint(), "append", "/app/orders"));
      assertThat(revoked.exitCode()).as("%s", revoked).isEqualTo(5);
      assertThat(reader.create("/app/later", CreateOptions.defaults())).isNotNull();
    }
  }
}
