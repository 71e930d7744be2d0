package io.picomq.client;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One request as the SDK means it, before redirects: method, URI, headers, body and timeout. An
 * immutable value, so a retry or a redirect sends exactly the same bytes again.
 *
 * @param body not copied: nobody may modify the array afterwards; empty for no body
 * @param timeout how long until the answer's headers must have arrived
 */
record HttpCall(
    String method, URI uri, Map<String, String> headers, byte[] body, Duration timeout) {

  private static final byte[] NO_BODY = new byte[0];

  HttpCall {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(uri, "uri");
    headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(timeout, "timeout");
  }

  static HttpCall of(String method, URI uri, Duration timeout) {
    return new HttpCall(method, uri, Map.of(), NO_BODY, timeout);
  }

  HttpCall withHeaders(Map<String, String> more) {
    Map<String, String> all = new LinkedHashMap<>(headers);
    all.putAll(more);
    return new HttpCall(method, uri, all, body, timeout);
  }

  HttpCall withBody(byte[] body) {
    return new HttpCall(method, uri, headers, body, timeout);
  }

  HttpCall withUri(URI uri) {
    return new HttpCall(method, uri, headers, body, timeout);
  }

  HttpCall withMethod(String method) {
    return new HttpCall(method, uri, headers, body, timeout);
  }

  HttpCall withTimeout(Duration timeout) {
    return new HttpCall(method, uri, headers, body, timeout);
  }

  HttpRequest toRequest() {
    HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(timeout);
    headers.forEach(builder::header);
    HttpRequest.BodyPublisher publisher =
        body.length == 0
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body);
    return builder.method(method, publisher).build();
  }
}
