package io.picomq.frontend.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.picomq.stream.StreamUnusableException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a request that failed with an exception answers, the same in every protocol: a known
 * condition its own status and JSON error (a passing one, {@link Unavailable}, 503 or 507 with
 * {@code Retry-After}; a stream whose stored state is unusable 409), anything else 500 (a bug:
 * logged with its stack trace). Nothing is answered once an answer has begun.
 */
public final class FailureAnswers {

  private static final Logger LOG = LoggerFactory.getLogger(FailureAnswers.class);

  private FailureAnswers() {}

  public static void answer(Exchange exchange, Throwable failure) {
    if (Unavailable.answer(exchange, failure)) {
      return; // storage or metadata failing, or the request timeout
    }
    Throwable cause = unwrap(failure);
    if (cause instanceof StreamUnusableException unusable) {
      // Reported in the node's log once; the client learns why, and that DELETE removes it.
      if (!exchange.answered()) {
        exchange.respondError(
            HttpResponseStatus.CONFLICT,
            "stream_unusable",
            unusable.getMessage() + "; DELETE removes it");
      }
      return;
    }
    LOG.error("handler failed on {} {}", exchange.method(), exchange.path(), failure);
    if (!exchange.answered()) {
      exchange.respondError(
          HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal", "the server failed: a bug");
    }
  }

  /**
   * The failure behind the wrappers a future adds ({@link CompletionException}, {@link
   * ExecutionException}). The frontend's one copy: it depends on the stream contract only, not on
   * the engine's {@code Causes}.
   */
  static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
