package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Objects;

/**
 * The base of every error this SDK throws: an answer from the server that is not a success, or a
 * failure to get an answer at all. Unchecked, so callers catch what they can handle — {@link
 * StreamNotFoundException}, {@link SeqMismatchException} — and let the rest propagate.
 *
 * <p>A server error carries the HTTP status, the JSON body's {@code error} code and {@code
 * message}, and the whole body (e.g. {@code next_seq}). Errors raised in the client (no answer, an
 * operation the protocol lacks) have status 0.
 */
public class PicoException extends RuntimeException {

  private final int status;
  private final String errorCode;
  private final String serverMessage;
  private final transient JsonNode body;

  /**
   * @param status the HTTP status, or 0 when the error did not come from the server
   * @param errorCode the server's {@code error} code (e.g. {@code stream_not_found}), or a
   *     client-side code
   * @param message a readable description
   * @param body the server's JSON body, or an empty object
   * @param cause the underlying failure, or null
   */
  public PicoException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(describe(status, errorCode, message), cause);
    this.status = status;
    this.errorCode = Objects.requireNonNull(errorCode, "errorCode");
    this.serverMessage = Objects.requireNonNullElse(message, "");
    this.body = body == null ? JsonNodeFactory.instance.objectNode() : body;
  }

  private static String describe(int status, String errorCode, String message) {
    String text = message == null || message.isEmpty() ? errorCode : errorCode + ": " + message;
    return status == 0 ? text : status + " " + text;
  }

  /** The HTTP status, or 0 when the error did not come from the server. */
  public int status() {
    return status;
  }

  /** The server's {@code error} code, such as {@code stream_not_found}, or a client-side code. */
  public String errorCode() {
    return errorCode;
  }

  /** The server's {@code message} (or the client's description), without status and code. */
  public String message() {
    return serverMessage;
  }

  /** The server's JSON error body; an empty object when there was none. */
  public JsonNode body() {
    return body;
  }

  /**
   * Whether sending the same request again may succeed: transport failures and 5xx answers. An
   * idempotent producer's retry is safe even for appends; other appends may then be written twice.
   */
  public boolean isRetriable() {
    return false;
  }
}
