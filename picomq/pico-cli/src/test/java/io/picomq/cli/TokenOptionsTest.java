package io.picomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.cli.RecordingServer.Answer;
import io.picomq.cli.config.ConfigFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the client verbs find their token ({@code --token}, {@code --token-file}, {@code PICO_TOKEN},
 * {@code PICO_TOKEN_FILE}, the profile), what they send, how they report a refusal, and that no
 * output shows a token. Against a real HTTP server on a loopback port.
 */
class TokenOptionsTest {

  static final String FLAG_TOKEN = "flagflagflag.flag-secret-flag-secret-flag-secret-flag-se";
  static final String ENV_TOKEN = "envenvenvenv.env-secret-env-secret-env-secret-env-secret";
  static final String PROFILE_TOKEN = "profileprofi.profile-secret-profile-secret-profile-secre";
  static final String FILE_TOKEN = "filefilefile.file-secret-file-secret-file-secret-file-se";

  @TempDir Path dir;
  private RecordingServer server;
  private Path config;

  @BeforeEach
  void start() throws IOException {
    config = dir.resolve("config.json");
    server =
        new RecordingServer(
            request ->
                switch (request.target()) {
                  case "/unauthorized" ->
                      Answer.json(
                          401, "{\"error\":\"unauthorized\",\"message\":\"the token is unknown\"}");
                  case "/forbidden" ->
                      Answer.json(
                          403, "{\"error\":\"forbidden\",\"message\":\"delete is not in scope\"}");
                  default ->
                      new Answer(
                          200,
                          Map.of(
                              "Pico-Start-Seq",
                              "0",
                              "Pico-Next-Seq",
                              "0",
                              "Content-Type",
                              "text/plain"),
                          "");
                });
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("PICO_CONFIG", config.toString());
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  /** {@code pico delete STREAM --endpoint ...} plus {@code more}; answers what the server saw. */
  private String authorizationOf(Map<String, String> env, String... more) {
    int before = server.requests().size();
    String[] args = new String[4 + more.length];
    args[0] = "delete";
    args[1] = "s";
    args[2] = "--endpoint";
    args[3] = server.base();
    System.arraycopy(more, 0, args, 4, more.length);
    PicoRunner.Run run = PicoRunner.run(env, args);
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(server.requests()).hasSize(before + 1);
    return server.requests().getLast().authorization();
  }

  @Test
  void theFlagWinsOverTheVariableWhichWinsOverTheProfile() throws IOException {
    assertThat(authorizationOf(env())).isNull();

    ConfigFile.empty().withSetting("work", "token", PROFILE_TOKEN).withCurrent("work").save(config);
    assertThat(authorizationOf(env())).isEqualTo("Bearer " + PROFILE_TOKEN);
    assertThat(authorizationOf(env("PICO_TOKEN", ENV_TOKEN))).isEqualTo("Bearer " + ENV_TOKEN);
    assertThat(authorizationOf(env("PICO_TOKEN", ENV_TOKEN), "--token", FLAG_TOKEN))
        .isEqualTo("Bearer " + FLAG_TOKEN);

    // A file is another way of giving the token at the same level: its flag beats PICO_TOKEN, its
    // variable beats the profile's token.
    Path file = dir.resolve("token");
    Files.writeString(file, FILE_TOKEN + "\n");
    assertThat(authorizationOf(env("PICO_TOKEN", ENV_TOKEN), "--token-file", file.toString()))
        .isEqualTo("Bearer " + FILE_TOKEN);
    assertThat(authorizationOf(env("PICO_TOKEN_FILE", file.toString())))
        .isEqualTo("Bearer " + FILE_TOKEN);
    ConfigFile.empty()
        .withSetting("work", "token-file", file.toString())
        .withCurrent("work")
        .save(config);
    assertThat(authorizationOf(env())).isEqualTo("Bearer " + FILE_TOKEN);
  }

  @Test
  void twoWaysAtTheSameLevelAreAUsageError() throws IOException {
    Path file = dir.resolve("token");
    Files.writeString(file, FILE_TOKEN);
    PicoRunner.Run both =
        PicoRunner.run(
            env(),
            "head",
            "s",
            "--endpoint",
            server.base(),
            "--token",
            FLAG_TOKEN,
            "--token-file",
            file.toString());
    assertThat(both.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(both.err()).isEqualTo("pico: --token and --token-file exclude each other\n");

    PicoRunner.Run variables =
        PicoRunner.run(
            env("PICO_TOKEN", ENV_TOKEN, "PICO_TOKEN_FILE", file.toString()),
            "head",
            "s",
            "--endpoint",
            server.base());
    assertThat(variables.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(variables.err())
        .isEqualTo("pico: PICO_TOKEN and PICO_TOKEN_FILE exclude each other\n");
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void aBadTokenOrFileFailsInOneLineThatDoesNotShowIt() throws IOException {
    PicoRunner.Run spaced =
        PicoRunner.run(env(), "head", "s", "--endpoint", server.base(), "--token", "secret part");
    assertThat(spaced.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(spaced.err())
        .isEqualTo(
            "pico: --token: a token has only visible ASCII characters, and this one has character"
                + " U+0020 at position 6\n");

    Path twoLines = dir.resolve("two-lines");
    Files.writeString(twoLines, "secret\nmore\n");
    PicoRunner.Run multiline =
        PicoRunner.run(
            env(), "head", "s", "--endpoint", server.base(), "--token-file", twoLines.toString());
    assertThat(multiline.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(multiline.err()).contains("a line break at position 6").doesNotContain("secret");

    PicoRunner.Run missing =
        PicoRunner.run(
            env(),
            "head",
            "s",
            "--endpoint",
            server.base(),
            "--token-file",
            dir.resolve("none").toString());
    assertThat(missing.exitCode()).isEqualTo(ExitCode.FAILURE);
    assertThat(missing.err())
        .isEqualTo(
            "pico: cannot read the token file "
                + dir.resolve("none")
                + " (from --token-file): NoSuchFileException\n");
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void refusalsExitWithTheirOwnCodesInOneLine() {
    PicoRunner.Run unauthorized =
        PicoRunner.run(
            env(), "delete", "unauthorized", "--endpoint", server.base(), "--token", FLAG_TOKEN);
    assertThat(unauthorized.exitCode()).isEqualTo(ExitCode.UNAUTHORIZED);
    assertThat(unauthorized.err())
        .isEqualTo(
            "pico: no valid token: the token is unknown (unauthorized); give one with --token,"
                + " --token-file, PICO_TOKEN or a profile's token\n");

    PicoRunner.Run forbidden =
        PicoRunner.run(
            env(), "delete", "forbidden", "--endpoint", server.base(), "--token", FLAG_TOKEN);
    assertThat(forbidden.exitCode()).isEqualTo(ExitCode.FORBIDDEN);
    assertThat(forbidden.err())
        .isEqualTo("pico: not allowed: delete is not in scope (forbidden)\n");
  }

  @Test
  void configShowsTokensMaskedAndKeepsTheFilePrivate() throws IOException {
    PicoRunner.Run set = PicoRunner.run(env(), "config", "set", "token", PROFILE_TOKEN);
    assertThat(set.exitCode()).as(set.toString()).isZero();
    assertThat(set.err()).isEqualTo("pico: token = profileprofi.*** in profile default\n");

    PicoRunner.Run ls = PicoRunner.run(env(), "config", "ls");
    assertThat(ls.out()).contains("token = profileprofi.***").doesNotContain(PROFILE_TOKEN);

    PicoRunner.Run get =
        PicoRunner.run(env("PICO_TOKEN", "not-in-the-issued-format"), "config", "get", "token");
    assertThat(get.out()).isEqualTo("***\n");
    assertThat(get.err()).isEqualTo("pico: from PICO_TOKEN\n");

    // Written through a temporary file, which only its owner may read.
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(config)))
        .isEqualTo("rw-------");
    assertThat(Files.readString(config)).contains(PROFILE_TOKEN);
  }

  @Test
  void aTokenThatBeginsWithADashIsAValueNotAnOption() throws IOException {
    String dashed = "-" + PROFILE_TOKEN.substring(1);
    PicoRunner.Run set = PicoRunner.run(env(), "config", "set", "token", dashed);
    assertThat(set.exitCode()).as(set.toString()).isZero();
    assertThat(Files.readString(config)).contains(dashed);
  }

  @Test
  void tokenNewPrintsAFreshTokenInTheIssuedFormat() {
    Set<String> tokens = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      PicoRunner.Run run = PicoRunner.run(env(), "token", "new");
      assertThat(run.exitCode()).isZero();
      assertThat(run.out()).matches("[A-Za-z0-9_-]{12}\\.[A-Za-z0-9_-]{43}\n");
      tokens.add(run.out());
    }
    assertThat(tokens).hasSize(3);
    assertThat(server.requests()).isEmpty();
  }
}
