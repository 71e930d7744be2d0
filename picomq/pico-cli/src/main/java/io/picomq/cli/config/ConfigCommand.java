package io.picomq.cli.config;

import io.picomq.cli.DashedArguments;
import io.picomq.cli.ExitCode;
import io.picomq.cli.Failure;
import io.picomq.cli.Pico;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code pico config}: profiles of client settings in a small JSON file. A profile holds any of
 * {@code endpoint}, {@code protocol}, {@code http2}, {@code admin-endpoint} and {@code ca-cert};
 * flags and {@code PICO_*} variables still win over it.
 */
@Command(
    name = "config",
    mixinStandardHelpOptions = true,
    header = "Profiles of client settings.",
    description = {
      "Keys: endpoint, protocol, http2, admin-endpoint, token, token-file, ca-cert. The",
      "file is $PICO_CONFIG, else $XDG_CONFIG_HOME/pico/config.json, else",
      "~/.config/pico/config.json (readable by its owner only). A flag or PICO_*",
      "variable wins over the profile; the profile wins over the default. Tokens are",
      "shown masked."
    },
    subcommands = {
      ConfigCommand.Set.class,
      ConfigCommand.Get.class,
      ConfigCommand.Ls.class,
      ConfigCommand.Rm.class,
      ConfigCommand.Use.class,
      ConfigCommand.PathCommand.class
    })
public final class ConfigCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  private static Setting setting(String key) {
    return Setting.byKey(key)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "no setting named '" + key + "' (settings: " + Setting.keys() + ")"));
  }

  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      description = {
        "Set KEY to VALUE in the profile named by --profile, else the current one, else",
        "'default'. The first profile made becomes the current one."
      })
  static final class Set implements Runnable, DashedArguments {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "KEY",
        description = "endpoint, protocol, http2, admin-endpoint, token, token-file or ca-cert.")
    String key;

    @Parameters(index = "1", paramLabel = "VALUE")
    String value;

    @Override
    public void run() {
      Settings settings = Pico.of(spec).settings();
      Setting setting = setting(key);
      String normalized = setting.validate(value, key);
      ConfigFile file = settings.file();
      String profile = settings.requestedProfile().or(file::current).orElse("default");
      ConfigFile changed = file.withSetting(profile, setting.key(), normalized);
      if (changed.current().isEmpty()) {
        changed = changed.withCurrent(profile);
      }
      changed.save(settings.path());
      spec.commandLine()
          .getErr()
          .printf(
              java.util.Locale.ROOT,
              "pico: %s = %s in profile %s%n",
              key,
              setting.display(normalized),
              profile);
    }
  }

  @Command(
      name = "get",
      mixinStandardHelpOptions = true,
      description = {
        "Print the value KEY has for a client command run now (flag, PICO_* variable, profile",
        "or default); where it comes from goes to standard error."
      })
  static final class Get implements Runnable {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "KEY",
        description = "endpoint, protocol, http2, admin-endpoint, token, token-file or ca-cert.")
    String key;

    @Override
    public void run() {
      Pico pico = Pico.of(spec);
      Setting setting = setting(key);
      Settings.Resolved resolved = pico.settings().resolve(setting, pico.flag(setting.flag()));
      spec.commandLine().getOut().println(setting.display(resolved.value()));
      spec.commandLine().getOut().flush();
      spec.commandLine().getErr().println("pico: from " + resolved.source());
    }
  }

  @Command(
      name = "ls",
      mixinStandardHelpOptions = true,
      description = "List the profiles and their settings; * marks the current one.")
  static final class Ls implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      Settings settings = Pico.of(spec).settings();
      ConfigFile file = settings.file();
      PrintWriter out = spec.commandLine().getOut();
      if (file.profiles().isEmpty()) {
        spec.commandLine()
            .getErr()
            .println("pico: no profiles in " + settings.path() + " (pico config set endpoint URL)");
      }
      for (Map.Entry<String, Map<String, String>> profile : file.profiles().entrySet()) {
        boolean current = file.current().filter(profile.getKey()::equals).isPresent();
        out.println((current ? "* " : "  ") + profile.getKey());
        profile
            .getValue()
            .forEach(
                (key, value) ->
                    out.println(
                        "    "
                            + key
                            + " = "
                            + Setting.byKey(key).map(s -> s.display(value)).orElse(value)));
      }
      out.flush();
    }
  }

  @Command(
      name = "rm",
      mixinStandardHelpOptions = true,
      description = "Remove profile NAME, or only its setting KEY.")
  static final class Rm implements Runnable {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "The profile.")
    String name;

    @Parameters(index = "1", arity = "0..1", paramLabel = "KEY", description = "Only this setting.")
    String key;

    @Override
    public void run() {
      Settings settings = Pico.of(spec).settings();
      ConfigFile file = settings.file();
      Map<String, String> profile = existing(file, name, settings);
      if (key == null) {
        file.withoutProfile(name).save(settings.path());
        spec.commandLine()
            .getErr()
            .printf(java.util.Locale.ROOT, "pico: removed profile %s%n", name);
        return;
      }
      if (!profile.containsKey(setting(key).key())) {
        throw new Failure(ExitCode.NOT_FOUND, "profile " + name + " has no setting " + key);
      }
      file.withoutSetting(name, key).save(settings.path());
      spec.commandLine()
          .getErr()
          .printf(java.util.Locale.ROOT, "pico: removed %s from profile %s%n", key, name);
    }
  }

  @Command(
      name = "use",
      mixinStandardHelpOptions = true,
      description = "Make profile NAME the current one.")
  static final class Use implements Runnable {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Override
    public void run() {
      Settings settings = Pico.of(spec).settings();
      ConfigFile file = settings.file();
      existing(file, name, settings);
      file.withCurrent(name).save(settings.path());
      spec.commandLine().getErr().printf(java.util.Locale.ROOT, "pico: using profile %s%n", name);
    }
  }

  @Command(
      name = "path",
      mixinStandardHelpOptions = true,
      description = "Print where the profiles file is (it may not exist yet).")
  static final class PathCommand implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().getOut().println(Pico.of(spec).settings().path());
      spec.commandLine().getOut().flush();
    }
  }

  private static Map<String, String> existing(ConfigFile file, String name, Settings settings) {
    Optional<Map<String, String>> profile = file.profile(name);
    return profile.orElseThrow(
        () ->
            new Failure(
                ExitCode.NOT_FOUND,
                "no profile named '"
                    + name
                    + "' in "
                    + settings.path()
                    + " (see 'pico config ls')"));
  }
}
