package io.picomq.client;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Builds request URIs: the endpoint's base, the protocol's prefix ({@code /v1/stream} under Durable
 * Streams), the stream's name percent-encoded segment by segment, and a query.
 *
 * <p>Stream names are given with or without their leading {@code /} ({@code orders/42} and {@code
 * /orders/42} are the same stream); {@link #name} gives the canonical form the server uses.
 */
final class Endpoints {

  /** Where Durable Streams streams live under the endpoint. */
  static final String DS_BASE_PATH = "/v1/stream";

  private final URI base;
  private final String streamPrefix;

  Endpoints(URI endpoint, Protocol protocol) {
    if (endpoint.getScheme() == null || endpoint.getHost() == null) {
      throw new IllegalArgumentException("the endpoint needs a scheme and a host: " + endpoint);
    }
    String path = endpoint.getRawPath() == null ? "" : endpoint.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    this.base = URI.create(endpoint.getScheme() + "://" + endpoint.getRawAuthority() + path);
    this.streamPrefix = protocol == Protocol.DURABLE_STREAMS ? DS_BASE_PATH : "";
  }

  /** The canonical name: with a leading {@code /}. */
  static String name(String stream) {
    if (stream == null || stream.isEmpty() || stream.equals("/")) {
      throw new IllegalArgumentException("a stream name must not be empty");
    }
    return stream.startsWith("/") ? stream : "/" + stream;
  }

  /** The URI of the endpoint's root ({@code /}) with a query. */
  URI root(Map<String, String> query) {
    return URI.create(base + "/" + query(query));
  }

  /** The URI of a stream, with a query (may be empty). */
  URI stream(String stream, Map<String, String> query) {
    return URI.create(base + streamPrefix + encodePath(name(stream)) + query(query));
  }

  /** The URI of a stream without a query. */
  URI stream(String stream) {
    return stream(stream, Map.of());
  }

  /** A path on the endpoint (for the admin API), e.g. {@code /admin/cluster}. */
  URI path(String rawPath) {
    return URI.create(base + rawPath);
  }

  /** Percent-encodes each segment of {@code path}, keeping the slashes. */
  static String encodePath(String path) {
    StringBuilder out = new StringBuilder(path.length() + 16);
    for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (isPathChar(c)) {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
        out.append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return out.toString();
  }

  /** RFC 3986 unreserved characters, sub-delims, ':', '@' and the segment separator '/'. */
  private static boolean isPathChar(int c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || "-._~!$&'()*+,;=:@/".indexOf(c) >= 0;
  }

  private static String query(Map<String, String> query) {
    if (query.isEmpty()) {
      return "";
    }
    StringJoiner out = new StringJoiner("&", "?", "");
    query.forEach(
        (name, value) ->
            out.add(
                URLEncoder.encode(name, StandardCharsets.UTF_8)
                    + "="
                    + URLEncoder.encode(value, StandardCharsets.UTF_8)));
    return out.toString();
  }
}
