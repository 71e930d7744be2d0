package io.picomq.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsTest {
  @TempDir Path dir;

  @Test
  void flagThenVariableThenProfileThenDefault() {
    Path file = dir.resolve("config.json");
    ConfigFile.empty()
        .withSetting("work", "endpoint", "http://profile:1")
        .withCurrent("work")
        .save(file);
    Map<String, String> env = Map.of("PICO_CONFIG", file.toString());
    Map<String, String> envWithVariable =
        Map.of("PICO_CONFIG", file.toString(), "PICO_ENDPOINT", "http://variable:1");

    assertThat(
            Settings.of(envWithVariable, Optional.empty())
                .resolve(Setting.ENDPOINT, "http://flag:1"))
        .isEqualTo(new Settings.Resolved("http://flag:1", "--endpoint"));
    assertThat(Settings.of(envWithVariable, Optional.empty()).resolve(Setting.ENDPOINT, null))
        .isEqualTo(new Settings.Resolved("http://variable:1", "PICO_ENDPOINT"));
    assertThat(Settings.of(env, Optional.empty()).resolve(Setting.ENDPOINT, null))
        .isEqualTo(new Settings.Resolved("http://profile:1", "profile work"));
    assertThat(Settings.of(env, Optional.empty()).resolve(Setting.PROTOCOL, null))
        .isEqualTo(new Settings.Resolved("pico", "default"));
  }

  @Test
  void ofAlternativesTheHighestLevelWinsAndTwoAtOneLevelAreRefused() {
    Path file = dir.resolve("config.json");
    ConfigFile.empty().withSetting("work", "token", "profile.token").withCurrent("work").save(file);
    Map<String, String> env =
        Map.of("PICO_CONFIG", file.toString(), "PICO_TOKEN_FILE", "/run/secrets/pico");
    Settings settings = Settings.of(env, Optional.empty());

    // A file named by a variable beats a token in the profile; a token flag beats both.
    assertThat(settings.resolveOneOf(Setting.CREDENTIALS, Map.of()))
        .contains(
            new Settings.Chosen(
                Setting.TOKEN_FILE, new Settings.Resolved("/run/secrets/pico", "PICO_TOKEN_FILE")));
    assertThat(settings.resolveOneOf(Setting.CREDENTIALS, Map.of(Setting.TOKEN, "flag.token")))
        .contains(
            new Settings.Chosen(Setting.TOKEN, new Settings.Resolved("flag.token", "--token")));
    assertThat(
            Settings.of(Map.of("PICO_CONFIG", file.toString()), Optional.empty())
                .resolveOneOf(Setting.CREDENTIALS, Map.of()))
        .contains(
            new Settings.Chosen(
                Setting.TOKEN, new Settings.Resolved("profile.token", "profile work")));
    assertThat(
            Settings.of(Map.of("PICO_CONFIG", dir.resolve("none").toString()), Optional.empty())
                .resolveOneOf(Setting.CREDENTIALS, Map.of()))
        .isEmpty();
    assertThatThrownBy(
            () ->
                settings.resolveOneOf(
                    Setting.CREDENTIALS, Map.of(Setting.TOKEN, "a.b", Setting.TOKEN_FILE, "f")))
        .hasMessage("--token and --token-file exclude each other");
  }

  @Test
  void aTokenIsShownMaskedAndNeverInAnError() {
    String issued = "AAECAwQFBgcI." + "s".repeat(43);
    assertThat(Setting.TOKEN.display(issued)).isEqualTo("AAECAwQFBgcI.***");
    assertThat(Setting.TOKEN.display("hunter2.hunter2")).isEqualTo("***");
    assertThat(Setting.TOKEN_FILE.display("/run/secrets/pico")).isEqualTo("/run/secrets/pico");
    assertThatThrownBy(() -> Setting.TOKEN.validate("hunter2\thunter2", "token in profile work"))
        .hasMessage(
            "token in profile work: a token has only visible ASCII characters, and this one has"
                + " character U+0009 at position 7");
  }

  @Test
  void aNamedProfileMustExistAndAMissingFileIsNoProfiles() {
    Map<String, String> env = Map.of("PICO_CONFIG", dir.resolve("none.json").toString());
    assertThat(Settings.of(env, Optional.empty()).resolve(Setting.ENDPOINT, null).value())
        .isEqualTo("http://127.0.0.1:4437");
    assertThatThrownBy(() -> Settings.of(env, Optional.of("prod")).resolve(Setting.ENDPOINT, null))
        .hasMessageStartingWith("no profile named 'prod'");
  }

  @Test
  void valuesAreCheckedAndNormalised() {
    assertThat(Setting.ENDPOINT.validate("http://h:1/", "--endpoint")).isEqualTo("http://h:1");
    assertThat(Setting.PROTOCOL.validate("DS", "protocol")).isEqualTo("ds");
    assertThat(Setting.HTTP2.validate("TRUE", "http2")).isEqualTo("true");
    assertThatThrownBy(() -> Setting.ENDPOINT.validate("localhost:4437", "--endpoint"))
        .hasMessage("--endpoint wants an http:// or https:// URL, not 'localhost:4437'");
    assertThatThrownBy(() -> Setting.HTTP2.validate("yes", "PICO_HTTP2"))
        .hasMessage("PICO_HTTP2 is true or false, not 'yes'");
  }

  @Test
  void theFileRoundTripsAndListsInNameOrder() {
    Path file = dir.resolve("sub/dir/config.json");
    ConfigFile.empty()
        .withSetting("b", "protocol", "ds")
        .withSetting("b", "endpoint", "http://b:1")
        .withSetting("a", "http2", "true")
        .withCurrent("b")
        .save(file);
    ConfigFile loaded = ConfigFile.load(file);
    assertThat(loaded.current()).contains("b");
    assertThat(loaded.profiles().keySet()).containsExactly("a", "b");
    assertThat(loaded.profile("b").orElseThrow().keySet()).containsExactly("endpoint", "protocol");
    assertThat(loaded.withoutProfile("b").current()).isEmpty();
  }

  @Test
  void theFileLivesWhereTheVariablesSay() {
    assertThat(ConfigFile.location(Map.of("PICO_CONFIG", "/x/c.json")))
        .isEqualTo(Path.of("/x/c.json"));
    assertThat(ConfigFile.location(Map.of("XDG_CONFIG_HOME", "/xdg")))
        .isEqualTo(Path.of("/xdg/pico/config.json"));
    assertThat(ConfigFile.location(Map.of()))
        .isEqualTo(Path.of(System.getProperty("user.home"), ".config", "pico", "config.json"));
  }
}
