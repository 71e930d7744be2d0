package io.picomq.s3stream.core.compaction;

import java.util.concurrent.CompletionException;

/** Unwrapping of future failures, so callers see the cause and not a wrapper. */
final class Failures {

  private Failures() {}

  static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** The cause as an exception a future stage may throw. */
  static RuntimeException asCompletion(Throwable error) {
    Throwable cause = unwrap(error);
    return cause instanceof RuntimeException r ? r : new CompletionException(cause);
  }
}
