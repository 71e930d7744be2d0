package io.picomq.frontend.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.picomq.stream.StreamUnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Optional;

/**
 * The answer to a {@link StreamUnavailableException}, the same for both protocols (their error
 * bodies have one form, {@link JsonError}'s): {@code 503 Service Unavailable}, or {@code 507
 * Insufficient Storage} for a full disk, with {@code Retry-After} in seconds and the body
 *
 * <pre>{@code
 * {"error": "storage_unavailable", "message": "...", "may_have_completed": true}
 * }</pre>
 *
 * {@code error} is the reason in snake case ({@code over_capacity}, {@code storage_unavailable},
 * {@code disk_full}, {@code metadata_unavailable}, {@code timed_out}, {@code not_owner}); {@code
 * may_have_completed} says whether the request may still take effect, in which case only an
 * idempotent retry is safe (the message says so too).
 */
public final class Unavailable {

  private static final JsonFactory JSON = new JsonFactory();

  private static final HttpResponseStatus INSUFFICIENT_STORAGE =
      HttpResponseStatus.valueOf(507, "Insufficient Storage");

  private Unavailable() {}

  /** The {@link StreamUnavailableException} behind {@code failure}, if that is what it is. */
  public static Optional<StreamUnavailableException> of(Throwable failure) {
    Throwable cause = FailureAnswers.unwrap(failure);
    return cause instanceof StreamUnavailableException known
        ? Optional.of(known)
        : Optional.empty();
  }

  /**
   * Answers {@code failure} if it is a {@link StreamUnavailableException} and the exchange is not
   * answered yet.
   *
   * @return whether {@code failure} was of that kind (answered, or too late to answer)
   */
  public static boolean answer(Exchange exchange, Throwable failure) {
    Optional<StreamUnavailableException> known = of(failure);
    if (known.isEmpty()) {
      return false;
    }
    if (!exchange.answered()) {
      respond(exchange, known.get());
    }
    return true;
  }

  static void respond(Exchange exchange, StreamUnavailableException unavailable) {
    StreamUnavailableException.Reason reason = unavailable.reason();
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    headers.set(HttpHeaderNames.RETRY_AFTER, Integer.toString(reason.retryAfterSeconds()));
    HttpResponseStatus status =
        reason == StreamUnavailableException.Reason.DISK_FULL
            ? INSUFFICIENT_STORAGE
            : HttpResponseStatus.SERVICE_UNAVAILABLE;
    try {
      exchange.respond(status, headers, body(unavailable));
    } catch (IllegalStateException alreadyAnswered) {
      // A racing answer won; the client has it.
    }
  }

  static byte[] body(StreamUnavailableException unavailable) {
    String message = unavailable.getMessage() == null ? "" : unavailable.getMessage();
    if (unavailable.mayHaveCompleted()) {
      message +=
          "; the request may still complete: retry it only if it is idempotent (a producer's same"
              + " seq, a create with the same settings), or check the stream first";
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(128 + message.length());
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("error", unavailable.reason().name().toLowerCase(Locale.ROOT));
      json.writeStringField("message", message);
      json.writeBooleanField("may_have_completed", unavailable.mayHaveCompleted());
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return out.toByteArray();
  }
}
