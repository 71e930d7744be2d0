package io.picomq.cli;

/**
 * A command's expected failure: {@code pico} prints {@code pico: <message>} on one line of standard
 * error and exits with {@link #exitCode()}, without a stack trace.
 */
public final class Failure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int exitCode;

  /**
   * @param exitCode one of {@link ExitCode}'s codes
   * @param message what went wrong, readable on its own
   */
  public Failure(int exitCode, String message) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}
