package io.picomq.frontend.http;

import static io.netty.handler.codec.http.HttpResponseStatus.NO_CONTENT;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * The answer to a browser's CORS preflight ({@code OPTIONS}), the same for both protocols but for
 * the methods and request headers each allows. Browsers may cache it for a day, so a page that
 * appends in a loop does not pay a preflight per request.
 */
public final class CorsPreflight {

  private static final String MAX_AGE_SECONDS = "86400";

  private CorsPreflight() {}

  /**
   * Answers {@code 204} allowing {@code methods} and {@code requestHeaders} (each a comma-separated
   * list, as sent on the wire).
   */
  public static void answer(Exchange exchange, String methods, String requestHeaders) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_METHODS, methods);
    headers.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_HEADERS, requestHeaders);
    headers.set(HttpHeaderNames.ACCESS_CONTROL_MAX_AGE, MAX_AGE_SECONDS);
    exchange.respond(NO_CONTENT, headers, new byte[0]);
  }
}
