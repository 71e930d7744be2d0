package io.picomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class PicoVerbsTest {

  @Test
  void everyVerbIsRegisteredUnderItsOwnName() {
    for (Map.Entry<String, Class<?>> verb : Pico.VERBS.entrySet()) {
      assertThat(verb.getValue().getAnnotation(CommandLine.Command.class).name())
          .isEqualTo(verb.getKey());
    }
    assertThat(Pico.commandLine().getSubcommands().keySet())
        .containsExactlyElementsOf(Pico.VERBS.keySet());
  }

  @Test
  void aCommandLineForOneVerbHasThatVerbAndTheGlobalOptionsOnBothSides() {
    String[] args = {"--endpoint", "http://a:1", "head", "/s", "--protocol", "ds", "--http2"};
    assertThat(Pico.verbOf(args)).isEqualTo("head");
    CommandLine lazy = Pico.commandLine(args);
    assertThat(lazy.getSubcommands().keySet()).containsExactly("head");
    CommandLine.ParseResult parsed = lazy.parseArgs(args);
    Pico pico = lazy.getCommand();
    assertThat(pico.flag("--endpoint")).isEqualTo("http://a:1");
    assertThat(pico.flag("--protocol")).isEqualTo("ds");
    assertThat(pico.flag("--http2")).isEqualTo("true");
    assertThat(parsed.subcommand().commandSpec().name()).isEqualTo("head");
  }

  @Test
  void aTokenGivenBeforeTheVerbIsNotTakenForTheVerb() {
    String[] args = {"--token", "t.s", "--token-file", "f", "head", "/s"};
    assertThat(Pico.verbOf(args)).isEqualTo("head");
    CommandLine lazy = Pico.commandLine(args);
    lazy.parseArgs(args);
    Pico pico = lazy.getCommand();
    assertThat(pico.flag("--token")).isEqualTo("t.s");
    assertThat(pico.flag("--token-file")).isEqualTo("f");
  }

  @Test
  void withoutAKnownVerbEveryVerbIsThere() {
    assertThat(Pico.commandLine(new String[] {"--help"}).getSubcommands())
        .hasSize(Pico.VERBS.size());
    assertThat(Pico.commandLine(new String[] {"haed", "/s"}).getSubcommands())
        .hasSize(Pico.VERBS.size());
    assertThat(Pico.commandLine(new String[] {"completion", "bash"}).getSubcommands())
        .hasSize(Pico.VERBS.size());
  }
}
