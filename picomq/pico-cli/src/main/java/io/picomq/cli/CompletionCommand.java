package io.picomq.cli;

import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code pico completion bash|zsh}: prints a completion script for every command and flag. The
 * script is picocli's bash script; zsh runs it through {@code bashcompinit}, which the script turns
 * on by itself when zsh sources it.
 */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    header = "Print a shell completion script (bash or zsh).",
    description = {
      "Load it with:",
      "  bash: source <(pico completion bash)",
      "  zsh:  source <(pico completion zsh)    (e.g. in ~/.zshrc)"
    })
final class CompletionCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "bash|zsh", description = "The shell.")
  String shell;

  @Override
  public Integer call() {
    String script = AutoComplete.bash("pico", spec.root().commandLine());
    switch (shell.toLowerCase(Locale.ROOT)) {
      case "bash" -> spec.commandLine().getOut().print(script);
      // The same script: when zsh sources it, it turns on compinit (unless already on) and
      // bashcompinit itself, then registers the same completion function.
      case "zsh" -> {
        spec.commandLine()
            .getOut()
            .println("# pico completion for zsh: source <(pico completion zsh)");
        spec.commandLine().getOut().print(script);
      }
      default ->
          throw new IllegalArgumentException("completion is for bash or zsh, not '" + shell + "'");
    }
    spec.commandLine().getOut().flush();
    return ExitCode.OK;
  }
}
