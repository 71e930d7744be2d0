package io.picomq.e2e.cli;

import static io.picomq.e2e.cli.ClientVerbsTest.assertOk;
import static io.picomq.e2e.cli.PicoCli.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.e2e.ServerProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where {@code bin/pico} takes its settings from (flag, variable, profile, default), and how it
 * fails: one {@code pico: ...} line on standard error and a documented exit code.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProfilesAndErrorsTest {
  @TempDir static Path dir;
  private ServerProcess server;
  private URI endpoint;
  private URI nowhere;

  @BeforeAll
  void startServer() throws IOException {
    server = ServerProcess.start(dir.resolve("server"));
    endpoint = server.endpoint();
    // A port nobody listens on: bound, then released.
    try (ServerSocket socket = new ServerSocket(0)) {
      nowhere = URI.create("http://127.0.0.1:" + socket.getLocalPort());
    }
    PicoCli setup = new PicoCli(dir.resolve("unused.json"));
    assertOk(setup.run(at(endpoint, "create", "/profiles/s")));
  }

  @AfterAll
  void stopServer() {
    server.close();
  }

  @Test
  void aFlagWinsOverTheVariableWhichWinsOverTheProfileWhichWinsOverTheDefault() {
    Path config = dir.resolve("precedence.json");
    PicoCli pico = new PicoCli(config);

    assertOk(pico.run("config", "set", "endpoint", nowhere.toString()));
    assertThat(pico.run("config", "get", "endpoint").out().strip()).isEqualTo(nowhere.toString());
    // The profile points nowhere: the command fails to connect...
    assertThat(pico.run("head", "/profiles/s").exitCode()).isEqualTo(4);
    // ...unless a flag or the variable says otherwise.
    assertOk(pico.run("--endpoint", endpoint.toString(), "head", "/profiles/s"));
    assertOk(pico.run("head", "/profiles/s", "--endpoint", endpoint.toString()));
    PicoCli withVariable = pico.withEnv("PICO_ENDPOINT", endpoint.toString());
    assertOk(withVariable.run("head", "/profiles/s"));
    PicoCli.Result get =
        withVariable.run("--endpoint", nowhere.toString(), "config", "get", "endpoint");
    assertThat(get.out().strip()).isEqualTo(nowhere.toString());
    assertThat(get.stderr()).contains("from --endpoint");

    // Without the profile the default applies (no server there in this test).
    assertOk(pico.run("config", "rm", "default", "endpoint"));
    PicoCli.Result fallback = pico.run("config", "get", "endpoint");
    assertThat(fallback.out().strip()).isEqualTo("http://127.0.0.1:4437");
    assertThat(fallback.stderr()).contains("from default");
  }

  @Test
  void profilesAreMadeListedSwitchedAndRemoved() throws IOException {
    Path config = dir.resolve("profiles.json");
    PicoCli pico = new PicoCli(config);

    assertThat(pico.run("config", "path").out().strip()).isEqualTo(config.toString());
    assertOk(pico.run("--profile", "good", "config", "set", "endpoint", endpoint.toString()));
    assertOk(pico.run("--profile", "bad", "config", "set", "endpoint", nowhere.toString()));
    assertOk(pico.run("--profile", "bad", "config", "set", "protocol", "ds"));
    assertThat(Files.exists(config)).isTrue();

    // The first profile made is the current one.
    assertThat(pico.run("config", "ls").out())
        .isEqualTo(
            "  bad\n    endpoint = "
                + nowhere
                + "\n    protocol = ds\n"
                + "* good\n    endpoint = "
                + endpoint
                + "\n");
    assertOk(pico.run("head", "/profiles/s"));
    assertThat(pico.run("--profile", "bad", "head", "/profiles/s").exitCode()).isEqualTo(4);
    assertOk(pico.withEnv("PICO_PROFILE", "good").run("head", "/profiles/s"));

    assertOk(pico.run("config", "use", "bad"));
    assertThat(pico.run("config", "ls").out()).contains("* bad");
    assertThat(pico.run("config", "get", "protocol").out().strip()).isEqualTo("ds");
    // The profile's protocol applies: ls is Pico-only.
    assertThat(pico.run("ls").exitCode()).isEqualTo(2);

    assertOk(pico.run("config", "rm", "bad"));
    assertThat(pico.run("config", "ls").out()).doesNotContain("bad");
    assertThat(pico.run("config", "use", "bad").exitCode()).isEqualTo(3);
    PicoCli.Result missing = pico.run("--profile", "bad", "head", "/profiles/s");
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.errLines()).singleElement().asString().contains("no profile named 'bad'");
  }

  @Test
  void aBadValueInAProfileOrFlagIsAUsageError() {
    PicoCli pico = new PicoCli(dir.resolve("bad-values.json"));
    PicoCli.Result badKey = pico.run("config", "set", "colour", "blue");
    assertThat(badKey.exitCode()).isEqualTo(2);
    assertThat(badKey.errLines())
        .singleElement()
        .asString()
        .startsWith("pico: no setting named 'colour'");

    PicoCli.Result badUrl = pico.run("--endpoint", "ftp://x", "head", "/s");
    assertThat(badUrl.exitCode()).isEqualTo(2);
    assertThat(badUrl.errLines())
        .singleElement()
        .asString()
        .isEqualTo("pico: --endpoint wants an http:// or https:// URL, not 'ftp://x'");
  }

  @Test
  void anUnknownStreamExitsThreeWithOneLine() {
    PicoCli pico = new PicoCli(dir.resolve("errors.json"));
    for (String verb : new String[] {"read", "head", "tail", "close", "delete"}) {
      PicoCli.Result result = pico.run(at(endpoint, verb, "/no/such/stream"));
      assertThat(result.exitCode()).as("%s: %s", verb, result).isEqualTo(3);
      assertThat(result.errLines())
          .as(verb)
          .singleElement()
          .asString()
          .startsWith("pico: no stream named '/no/such/stream'")
          .endsWith("(stream_not_found)");
      assertThat(result.stdout()).isEmpty();
    }
    PicoCli.Result append =
        pico.run(
            "x\n".getBytes(java.nio.charset.StandardCharsets.UTF_8),
            at(endpoint, "append", "/no/such/stream"));
    assertThat(append.exitCode()).isEqualTo(3);
  }

  @Test
  void badFlagsExitTwoWithOneLineNamingTheHelp() {
    PicoCli pico = new PicoCli(dir.resolve("errors.json"));
    PicoCli.Result unknown = pico.run("read", "/s", "--no-such-flag");
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.errLines())
        .singleElement()
        .asString()
        .isEqualTo("pico: Unknown option: '--no-such-flag' (see 'pico read --help')");

    PicoCli.Result missing = pico.run("trim", "/s");
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.errLines()).singleElement().asString().contains("--seq");

    PicoCli.Result badNumber = pico.run("read", "/s", "--seq", "abc");
    assertThat(badNumber.exitCode()).isEqualTo(2);
    assertThat(badNumber.errLines()).hasSize(1);

    PicoCli.Result badFormat = pico.run(at(endpoint, "read", "/profiles/s", "--format", "xml"));
    assertThat(badFormat.exitCode()).isEqualTo(2);
    assertThat(badFormat.errLines()).hasSize(1);
  }

  @Test
  void aConflictExitsOneWithTheServersCode() {
    PicoCli pico = new PicoCli(dir.resolve("errors.json"));
    PicoCli.Result conflict =
        pico.run(at(endpoint, "create", "/profiles/s", "--content-type", "text/csv"));
    assertThat(conflict.exitCode()).isEqualTo(1);
    assertThat(conflict.errLines()).singleElement().asString().startsWith("pico: ").endsWith(")");
  }

  @Test
  void anUnreachableServerExitsFour() {
    PicoCli pico = new PicoCli(dir.resolve("errors.json"));
    PicoCli.Result result = pico.run(at(nowhere, "head", "/s"));
    assertThat(result.exitCode()).isEqualTo(4);
    assertThat(result.errLines())
        .singleElement()
        .asString()
        .startsWith("pico: cannot reach the server")
        .endsWith("(transport)");
  }

  @Test
  void completionScriptsForBashAndZsh() {
    PicoCli pico = new PicoCli(dir.resolve("errors.json"));
    PicoCli.Result bash = pico.run("completion", "bash");
    assertOk(bash);
    assertThat(bash.out()).contains("complete -F").contains("append").contains("--endpoint");
    PicoCli.Result zsh = pico.run("completion", "zsh");
    assertOk(zsh);
    assertThat(zsh.out()).contains("ZSH_VERSION").contains("bashcompinit").contains("complete -F");
    assertThat(pico.run("completion", "fish").exitCode()).isEqualTo(2);
  }
}
