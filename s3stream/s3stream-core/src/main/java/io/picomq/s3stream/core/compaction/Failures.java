package io.picomq.s3stream.core.compaction;

import io.picomq.s3stream.api.Causes;
import java.util.concurrent.CompletionException;

/** Unwrapping of future failures, so callers see the cause and not a wrapper. */
final class Failures {

  private Failures() {}

  /** The cause as an exception a future stage may throw. */
  static RuntimeException asCompletion(Throwable error) {
    Throwable cause = Causes.unwrap(error);
    return cause instanceof RuntimeException r ? r : new CompletionException(cause);
  }
}
