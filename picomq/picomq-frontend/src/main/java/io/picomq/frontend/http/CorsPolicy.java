package io.picomq.frontend.http;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Objects;

/**
 * What a listener tells browsers about calls from pages of other origins (CORS): which origins
 * ({@link AllowedOrigins}), and for those the methods and request headers a preflight allows and
 * the response headers a script may read.
 *
 * <p>The listener answers preflights itself, before routing (a preflight redirected to another node
 * would fail in the browser): {@code 204} listing the methods and request headers, with {@code
 * Access-Control-Allow-Origin} (the allowance) for an allowed origin only. Without it the browser
 * stops, so the list grants a foreign page nothing; it is what the protocol's description says
 * anyway, and the Durable Streams conformance suite asks for it from {@code https://example.com} (a
 * 403 would fail that test at the default settings). It refuses ({@code 403}, JSON) a write that a
 * page of a foreign origin sent without a preflight ({@link #refusesWrite}). Every other answer
 * carries {@code Access-Control-Allow-Origin} (the caller's origin, or {@code *}) only when its
 * origin is allowed, and {@code Vary: Origin} whenever the answer depends on the origin, so a cache
 * never hands one origin's allowance to another. {@code Access-Control-Allow-Credentials} is never
 * sent.
 *
 * @param origins the allowed origins
 * @param setting how the operator changes {@code origins} (named in a 403)
 * @param methods allowed methods as sent on the wire, e.g. {@code GET, POST}
 * @param requestHeaders request headers a page may send, comma-separated
 * @param exposedHeaders response headers a page may read, comma-separated (may be empty)
 */
public record CorsPolicy(
    AllowedOrigins origins,
    String setting,
    String methods,
    String requestHeaders,
    String exposedHeaders) {

  /** Browsers may cache a preflight for a day: a page appending in a loop pays for one. */
  private static final String MAX_AGE_SECONDS = "86400";

  public CorsPolicy {
    Objects.requireNonNull(origins, "origins");
    Objects.requireNonNull(setting, "setting");
    Objects.requireNonNull(methods, "methods");
    Objects.requireNonNull(requestHeaders, "requestHeaders");
    Objects.requireNonNull(exposedHeaders, "exposedHeaders");
  }

  /** No origin allowed: no CORS headers, no preflight granted. */
  public static CorsPolicy none(String setting) {
    return new CorsPolicy(AllowedOrigins.NONE, setting, "", "", "");
  }

  /** Whether the request is a CORS preflight (not just any {@code OPTIONS}). */
  static boolean isPreflight(HttpMethod method, HttpHeaders request) {
    return method.equals(HttpMethod.OPTIONS)
        && request.contains(HttpHeaderNames.ORIGIN)
        && request.contains(HttpHeaderNames.ACCESS_CONTROL_REQUEST_METHOD);
  }

  /**
   * Whether to refuse a request before it runs: a write (any method but {@code GET}, {@code HEAD}
   * and {@code OPTIONS}) sent by a page of an origin that is neither allowed nor the listener's
   * own. CORS alone would let it through: a browser sends a cross-site {@code POST} of {@code
   * text/plain}, a form or multipart without a preflight (only the answer is hidden from the page),
   * which would be a blind append. Browsers name the page's origin in {@code Origin} on every such
   * request; clients that are no browser send none and are not affected.
   */
  boolean refusesWrite(HttpMethod method, HttpHeaders request) {
    String origin = request.get(HttpHeaderNames.ORIGIN);
    if (origin == null
        || origins.any()
        || method.equals(HttpMethod.GET)
        || method.equals(HttpMethod.HEAD)
        || method.equals(HttpMethod.OPTIONS)) {
      return false;
    }
    return !origins.allows(origin)
        && !AllowedOrigins.isSameOrigin(origin, request.get(HttpHeaderNames.HOST));
  }

  /**
   * Answers a preflight: the methods and headers, and for an allowed origin the allowance ({@link
   * #decorate} adds {@code Access-Control-Allow-Origin}) and how long to keep it.
   */
  void answerPreflight(Exchange exchange) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_METHODS, methods);
    headers.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_HEADERS, requestHeaders);
    if (origins.allows(exchange.headers().get(HttpHeaderNames.ORIGIN))) {
      headers.set(HttpHeaderNames.ACCESS_CONTROL_MAX_AGE, MAX_AGE_SECONDS);
    }
    exchange.respond(HttpResponseStatus.NO_CONTENT, headers, new byte[0]);
  }

  /** Answers a write {@link #refusesWrite} refuses: 403, saying why. */
  void refuseWrite(Exchange exchange) {
    String origin = exchange.headers().get(HttpHeaderNames.ORIGIN);
    exchange.respondError(
        HttpResponseStatus.FORBIDDEN,
        "origin_not_allowed",
        "pages of origin '"
            + origin
            + "' may not call this listener; to allow them, add the origin to "
            + setting);
  }

  /** Adds the CORS headers of an answer to a request from {@code origin} (null when none). */
  void decorate(String origin, HttpHeaders response) {
    if (origins.isNone()) {
      return;
    }
    if (origins.any()) {
      response.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    } else {
      response.add(HttpHeaderNames.VARY, "Origin");
      if (origin == null || !origins.allows(origin)) {
        return;
      }
      response.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    if (!exposedHeaders.isEmpty()) {
      response.set(HttpHeaderNames.ACCESS_CONTROL_EXPOSE_HEADERS, exposedHeaders);
    }
  }
}
