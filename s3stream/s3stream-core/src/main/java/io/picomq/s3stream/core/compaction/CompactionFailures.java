package io.picomq.s3stream.core.compaction;

import io.picomq.s3stream.api.Causes;
import java.util.concurrent.CompletionException;

/** A future's failure as an exception a later stage may throw, without its wrappers. */
final class CompactionFailures {

  private CompactionFailures() {}

  /** The cause as an exception a future stage may throw. */
  static RuntimeException asCompletion(Throwable error) {
    Throwable cause = Causes.unwrap(error);
    return cause instanceof RuntimeException r ? r : new CompletionException(cause);
  }
}
