package io.picomq.node;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.picomq.frontend.http.Exchange;
import java.util.Locale;
import java.util.Optional;

/**
 * The admin listener's rule for writes: every request but {@code GET}, {@code HEAD} and {@code
 * OPTIONS} carries {@code Content-Type: application/json} (parameters such as {@code charset}
 * allowed), with a body or without.
 *
 * <p>Why: a web page may send a cross-site {@code POST} without asking first (no CORS preflight)
 * only as {@code text/plain}, a form or multipart; any other type needs a preflight, which the
 * admin listener grants no origin by default. So a page the operator opens cannot change slots or
 * move streams, even though the admin listener has no authentication. The CLI, the SDK's admin
 * client and the dashboard all send JSON.
 */
final class JsonWrites {

  private static final String JSON = "application/json";

  private JsonWrites() {}

  /** Why the request is refused ({@code 415}), or empty when it may go on. */
  static Optional<String> refusal(Exchange exchange) {
    HttpMethod method = exchange.method();
    if (method.equals(HttpMethod.GET)
        || method.equals(HttpMethod.HEAD)
        || method.equals(HttpMethod.OPTIONS)) {
      return Optional.empty();
    }
    String contentType = exchange.headers().get(HttpHeaderNames.CONTENT_TYPE);
    if (contentType != null && isJson(contentType)) {
      return Optional.empty();
    }
    return Optional.of(
        "admin "
            + method
            + " requests take Content-Type: "
            + JSON
            + (contentType == null ? ", and this one has none" : ", not " + contentType));
  }

  private static boolean isJson(String contentType) {
    int parameters = contentType.indexOf(';');
    String mediaType = parameters < 0 ? contentType : contentType.substring(0, parameters);
    return mediaType.strip().toLowerCase(Locale.ROOT).equals(JSON);
  }
}
