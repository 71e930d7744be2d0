package io.picomq.frontend.http;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A request access control refuses: {@code 401 unauthorized} (no valid credential; the answer
 * carries {@code WWW-Authenticate}) or {@code 403 forbidden} (valid, but not allowed this). The
 * message says why without repeating any secret.
 */
public record AccessRefusal(HttpResponseStatus status, String error, String message) {

  /** The challenge a 401 carries. */
  public static final String CHALLENGE = "Bearer realm=\"picomq\"";

  public static AccessRefusal unauthorized(String message) {
    return new AccessRefusal(HttpResponseStatus.UNAUTHORIZED, "unauthorized", message);
  }

  public static AccessRefusal forbidden(String message) {
    return new AccessRefusal(HttpResponseStatus.FORBIDDEN, "forbidden", message);
  }
}
