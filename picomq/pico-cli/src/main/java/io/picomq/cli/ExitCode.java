package io.picomq.cli;

/**
 * The exit codes of {@code pico}, documented in {@code website/pages/docs/cli.md}. Scripts may rely
 * on them, so a code keeps its meaning.
 */
public final class ExitCode {
  private ExitCode() {}

  /** The command did what it was asked. */
  public static final int OK = 0;

  /**
   * The server refused the request (a conflict, a sealed stream, a bad request, a server error), or
   * a local file could not be read or written.
   */
  public static final int FAILURE = 1;

  /**
   * The command line is wrong: an unknown flag, a missing or malformed argument or setting, or a
   * Pico-only verb ({@code ls}, {@code trim}) under {@code --protocol ds}. Picocli's own code.
   */
  public static final int USAGE = 2;

  /** The stream (or the admin resource, or the profile) does not exist. */
  public static final int NOT_FOUND = 3;

  /**
   * The server could not be reached (connection refused, reset or timed out), or it answered that
   * it is unavailable ({@code 503}, or {@code 507} for a full disk) for longer than the command
   * retries. Either way, trying again later may succeed.
   */
  public static final int UNAVAILABLE = 4;

  /**
   * The server wants a valid token ({@code 401}): none was given, or it is malformed, unknown,
   * expired or revoked. Give one with {@code --token}, {@code --token-file}, {@code PICO_TOKEN} or
   * a profile's {@code token}.
   */
  public static final int UNAUTHORIZED = 5;

  /**
   * The token is valid but its scope does not allow the request ({@code 403}): another stream,
   * operation or listener, or issuing a token wider than itself.
   */
  public static final int FORBIDDEN = 6;

  /** Interrupted by Ctrl-C (SIGINT): 128 + 2, as shells report it. */
  public static final int INTERRUPTED = 130;
}
