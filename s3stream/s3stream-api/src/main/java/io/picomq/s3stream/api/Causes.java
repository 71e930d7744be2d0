package io.picomq.s3stream.api;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The failure behind the wrappers that futures put around it. A stage that fails with {@code e}
 * hands its dependents a {@link CompletionException} caused by {@code e}, and {@code get()} throws
 * an {@link ExecutionException}; code that decides by the kind of failure (retryable, fenced,
 * unavailable) must look beneath them. The engine's one copy of this walk, and the host's: both use
 * it through this facade package.
 */
public final class Causes {

  private Causes() {}

  /**
   * {@code failure} without its {@link CompletionException} and {@link ExecutionException} layers:
   * the first cause that is neither, or the innermost wrapper if it has no cause.
   */
  public static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
