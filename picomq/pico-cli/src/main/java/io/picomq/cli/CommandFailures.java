package io.picomq.cli;

import io.picomq.client.ForbiddenException;
import io.picomq.client.PicoException;
import io.picomq.client.PicoTransportException;
import io.picomq.client.ServiceUnavailableException;
import io.picomq.client.StreamNotFoundException;
import io.picomq.client.UnauthorizedException;
import io.picomq.client.UnsupportedByProtocolException;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.net.ssl.SSLHandshakeException;
import picocli.CommandLine;

/**
 * Turns whatever a command threw into one line on standard error, {@code pico: <what went wrong>
 * (<error code>)}, and an {@link ExitCode}. Users see no stack traces; {@code PICO_DEBUG=1} adds
 * one for bug reports.
 */
public final class CommandFailures {
  private CommandFailures() {}

  /**
   * What to tell the user.
   *
   * @param exitCode one of {@link ExitCode}'s codes
   * @param message the line after {@code pico: }
   */
  record Outcome(int exitCode, String message) {}

  static int handleExecution(
      Exception exception, CommandLine commandLine, CommandLine.ParseResult parsed) {
    Outcome outcome = describe(exception);
    commandLine.getErr().println("pico: " + outcome.message());
    if (System.getenv("PICO_DEBUG") != null) {
      exception.printStackTrace(commandLine.getErr());
    }
    commandLine.getErr().flush();
    return outcome.exitCode();
  }

  /** Bad flags or arguments: picocli's message on one line, and where to look for help. */
  static int handleParameter(CommandLine.ParameterException exception, String[] args) {
    CommandLine commandLine = exception.getCommandLine();
    String message = exception.getMessage().strip().replace('\n', ' ');
    commandLine
        .getErr()
        .println(
            "pico: "
                + message
                + " (see '"
                + commandLine.getCommandSpec().qualifiedName()
                + " --help')");
    commandLine.getErr().flush();
    return ExitCode.USAGE;
  }

  static Outcome describe(Throwable thrown) {
    Throwable cause = unwrap(thrown);
    return switch (cause) {
      case Failure failure -> new Outcome(failure.exitCode(), failure.getMessage());
      case UnsupportedByProtocolException unsupported ->
          new Outcome(ExitCode.USAGE, withCode(unsupported.message(), unsupported.errorCode()));
      case StreamNotFoundException notFound ->
          new Outcome(ExitCode.NOT_FOUND, withCode(text(notFound), notFound.errorCode()));
      case UnauthorizedException unauthorized ->
          new Outcome(
              ExitCode.UNAUTHORIZED,
              withCode("no valid token: " + text(unauthorized), unauthorized.errorCode())
                  + "; give one with --token, --token-file, PICO_TOKEN or a profile's token");
      case ForbiddenException forbidden ->
          new Outcome(
              ExitCode.FORBIDDEN,
              withCode("not allowed: " + text(forbidden), forbidden.errorCode()));
      case ServiceUnavailableException unavailable ->
          new Outcome(ExitCode.UNAVAILABLE, unavailable(unavailable));
      case PicoTransportException transport ->
          new Outcome(
              ExitCode.UNAVAILABLE,
              withCode("cannot reach the server: " + text(transport), transport.errorCode())
                  + untrustedHint(transport));
      case PicoException server ->
          new Outcome(
              server.status() == 404 ? ExitCode.NOT_FOUND : ExitCode.FAILURE,
              withCode(text(server), server.errorCode()));
      case IllegalArgumentException bad -> new Outcome(ExitCode.USAGE, bad.getMessage());
      case UncheckedIOException io -> new Outcome(ExitCode.FAILURE, io.getMessage());
      case IOException io -> new Outcome(ExitCode.FAILURE, "I/O error: " + io.getMessage());
      default -> new Outcome(ExitCode.FAILURE, "internal error: " + cause);
    };
  }

  /**
   * {@code server unavailable: <message> (<code>); retry after 5s}: what the server said, and when
   * it suggested trying again.
   */
  public static String unavailable(ServiceUnavailableException e) {
    String what = e.isStorageFull() ? "server out of storage: " : "server unavailable: ";
    String after =
        e.retryAfter().map(d -> "; it suggests retrying after " + d.toSeconds() + "s").orElse("");
    return withCode(what + text(e), e.errorCode()) + after;
  }

  private static String text(PicoException exception) {
    String message = exception.message();
    if (message.isEmpty()) {
      message = exception.status() == 0 ? exception.errorCode() : "HTTP " + exception.status();
    }
    return message.strip().replace('\n', ' ');
  }

  /** Where the server's certificate was not trusted: how to trust a private CA. */
  private static String untrustedHint(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof SSLHandshakeException) {
        return "; if a private CA signed the server's certificate, give it with --ca-cert FILE";
      }
    }
    return "";
  }

  private static String withCode(String message, String code) {
    return code == null || code.isEmpty() ? message : message + " (" + code + ")";
  }

  /**
   * The failure behind the wrappers a future adds ({@link
   * java.util.concurrent.CompletionException}, {@link java.util.concurrent.ExecutionException}).
   * The CLI's one copy: it talks to servers through the SDK and runs a node through {@code
   * io.picomq.node}, never the engine's {@code Causes}.
   */
  public static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof java.util.concurrent.CompletionException
            || cause instanceof java.util.concurrent.ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
