package io.picomq.cli;

import io.picomq.cli.admin.AdminCommand;
import io.picomq.cli.bench.BenchCommand;
import io.picomq.cli.client.AppendCommand;
import io.picomq.cli.client.CloseCommand;
import io.picomq.cli.client.CreateCommand;
import io.picomq.cli.client.DeleteCommand;
import io.picomq.cli.client.HeadCommand;
import io.picomq.cli.client.LsCommand;
import io.picomq.cli.client.ReadCommand;
import io.picomq.cli.client.TailCommand;
import io.picomq.cli.client.TrimCommand;
import io.picomq.cli.config.ConfigCommand;
import io.picomq.cli.config.Setting;
import io.picomq.cli.config.Settings;
import io.picomq.cli.config.TokenSources;
import io.picomq.client.BearerToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParseResult;

/**
 * The {@code pico} launcher's root command. It holds the global client options; each verb reads
 * them through {@link #settings()} and {@link #flag}, so a flag given before or after the verb
 * counts the same.
 */
@Command(
    name = "pico",
    mixinStandardHelpOptions = true,
    versionProvider = Pico.Version.class,
    description = {
      "PicoMQ: a durable, real-time stream server whose records live in object storage.",
      "",
      "Run a node with 'pico serve'; talk to one with the client verbs. A client",
      "setting comes from its flag, else its PICO_* variable, else the profile (see",
      "'pico config'), else its default. Data goes to standard output, everything",
      "else to standard error.",
      "",
      "Exit codes: 0 ok, 1 the server refused or failed, 2 usage, 3 not found,",
      "4 server unreachable, 5 no valid token, 6 token not allowed, 130 interrupted."
    })
public final class Pico implements Runnable {
  /** Every verb, in the order {@code pico --help} lists them. */
  static final Map<String, Class<?>> VERBS = verbs();

  /** Global options followed by a separate value ({@code --endpoint URL}). */
  private static final Set<String> VALUED_OPTIONS =
      Set.of("--protocol", "--endpoint", "--profile", "--token", "--token-file", "--ca-cert");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * The protocol spoken by {@code serve} and the client verbs. {@code serve} reads this field (its
   * default is PICO_PROTOCOL, else pico); the client verbs resolve it through {@link #flag} so a
   * profile can set it too.
   */
  @CommandLine.Option(
      names = "--protocol",
      scope = CommandLine.ScopeType.INHERIT,
      defaultValue = "${env:PICO_PROTOCOL:-pico}",
      paramLabel = "pico|ds",
      description = "pico or ds (Durable Streams) (PICO_PROTOCOL, default pico).")
  String protocol;

  @CommandLine.Option(
      names = "--endpoint",
      scope = CommandLine.ScopeType.INHERIT,
      paramLabel = "URL",
      description =
          "Server the client verbs talk to (PICO_ENDPOINT, default http://127.0.0.1:4437).")
  String endpoint;

  @CommandLine.Option(
      names = "--http2",
      scope = CommandLine.ScopeType.INHERIT,
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "true|false",
      description = "Speak HTTP/2 (h2c) instead of HTTP/1.1 (PICO_HTTP2, default false).")
  String http2;

  @CommandLine.Option(
      names = "--ca-cert",
      scope = CommandLine.ScopeType.INHERIT,
      paramLabel = "FILE",
      description =
          "PEM file of the CA that signed the server's certificate, trusted for https://"
              + " endpoints instead of the JDK's CAs (PICO_CA_CERT, profile ca-cert).")
  String caCert;

  @CommandLine.Option(
      names = "--profile",
      scope = CommandLine.ScopeType.INHERIT,
      paramLabel = "NAME",
      description = "Profile to take settings from (PICO_PROFILE, default: the current one).")
  String profile;

  @CommandLine.Option(
      names = "--token",
      scope = CommandLine.ScopeType.INHERIT,
      paramLabel = "TOKEN",
      description =
          "Bearer token for a node with access control (PICO_TOKEN; visible in the process"
              + " list, so prefer --token-file on shared machines).")
  String token;

  @CommandLine.Option(
      names = "--token-file",
      scope = CommandLine.ScopeType.INHERIT,
      paramLabel = "FILE",
      description = "Read the token from FILE instead (PICO_TOKEN_FILE).")
  String tokenFile;

  /** The process environment; tests put their own here before the command runs. */
  Map<String, String> environment = System.getenv();

  // Made on first use by the one thread that runs the command.
  private Settings settings;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  /** This command's settings: flags, environment, the profiles file. */
  public Settings settings() {
    if (settings == null) {
      settings = Settings.of(environment, Optional.ofNullable(profile));
    }
    return settings;
  }

  /**
   * The token the client verbs send: {@code --token} or {@code --token-file}, else {@code
   * PICO_TOKEN} or {@code PICO_TOKEN_FILE}, else the profile's; empty for none.
   */
  public Optional<BearerToken> token() {
    return TokenSources.token(settings(), flag("--token"), flag("--token-file"));
  }

  /**
   * The value {@code option} was given on the command line, before or after any verb; null when it
   * was not given. Defaults do not count: a profile may still set the setting.
   */
  public String flag(String option) {
    String value = null;
    for (ParseResult level = spec.commandLine().getParseResult();
        level != null;
        level = level.subcommand()) {
      if (level.hasMatchedOption(option)) {
        Object matched = level.matchedOption(option).getValue();
        value = matched == null ? null : matched.toString();
      }
    }
    return value;
  }

  /** The value of {@code setting}: flag, environment, profile, default. */
  public String setting(Setting setting) {
    return settings().resolve(setting, flag(setting.flag())).value();
  }

  /** The CA certificate file the client verbs trust ({@code --ca-cert}), if one is set. */
  public Optional<Path> caCertificate() {
    String file = setting(Setting.CA_CERT);
    return file.isEmpty() ? Optional.empty() : Optional.of(Path.of(file));
  }

  /** The root object of the command tree {@code spec} belongs to. */
  public static Pico of(CommandLine.Model.CommandSpec spec) {
    return (Pico) spec.root().userObject();
  }

  /** Builds the whole command line; separate from {@link #main} so tests run it in-process. */
  public static CommandLine commandLine() {
    return commandLine(VERBS.values());
  }

  /**
   * Builds the command line for {@code args}: the root and only the verb they name. Picocli builds
   * its model of a command by reflection, about 250 ms for all of them on a loaded machine, most of
   * a client command's start; one verb costs a fraction. Without a known verb (help, a typo), and
   * for {@code completion}, every verb is there.
   */
  public static CommandLine commandLine(String[] args) {
    Class<?> verb = VERBS.get(verbOf(args));
    if (verb == null || verb == CompletionCommand.class) {
      return commandLine();
    }
    return commandLine(List.of(verb));
  }

  private static CommandLine commandLine(Collection<Class<?>> verbs) {
    CommandLine commandLine = new CommandLine(new Pico());
    for (Class<?> verb : verbs) {
      commandLine.addSubcommand(verb);
    }
    commandLine.setCaseInsensitiveEnumValuesAllowed(true);
    commandLine.setExecutionExceptionHandler(CommandFailures::handleExecution);
    commandLine.setParameterExceptionHandler(CommandFailures::handleParameter);
    allowDashedArguments(commandLine);
    return commandLine;
  }

  /** Set last: adding a subcommand gives it its parent's parser settings. */
  private static void allowDashedArguments(CommandLine command) {
    if (command.getCommand() instanceof DashedArguments) {
      command.setUnmatchedOptionsArePositionalParams(true);
    }
    command.getSubcommands().values().forEach(Pico::allowDashedArguments);
  }

  /** The first argument that is not a global option or its value; "" if there is none. */
  static String verbOf(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (VALUED_OPTIONS.contains(args[i])) {
        i++;
      } else if (!args[i].startsWith("-")) {
        return args[i];
      }
    }
    return "";
  }

  private static Map<String, Class<?>> verbs() {
    Map<String, Class<?>> verbs = new LinkedHashMap<>();
    verbs.put("serve", ServeCommand.class);
    verbs.put("create", CreateCommand.class);
    verbs.put("append", AppendCommand.class);
    verbs.put("read", ReadCommand.class);
    verbs.put("tail", TailCommand.class);
    verbs.put("head", HeadCommand.class);
    verbs.put("ls", LsCommand.class);
    verbs.put("trim", TrimCommand.class);
    verbs.put("close", CloseCommand.class);
    verbs.put("delete", DeleteCommand.class);
    verbs.put("config", ConfigCommand.class);
    verbs.put("token", TokenCommand.class);
    verbs.put("admin", AdminCommand.class);
    verbs.put("completion", CompletionCommand.class);
    verbs.put("bench", BenchCommand.class);
    return Collections.unmodifiableMap(verbs);
  }

  public static void main(String[] args) {
    System.exit(commandLine(args).execute(args));
  }

  /** Reads the version Maven wrote into {@code version.properties}. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      Properties properties = new Properties();
      try (InputStream in = Pico.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          properties.load(in);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return new String[] {"pico " + properties.getProperty("version", "unknown")};
    }
  }
}
