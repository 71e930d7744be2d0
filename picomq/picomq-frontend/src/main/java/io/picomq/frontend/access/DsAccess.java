package io.picomq.frontend.access;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import java.util.List;

/**
 * The verb each Durable Streams request needs, on {@code /v1/stream/{name}}: {@code PUT} create, or
 * with {@code Stream-Forked-From} fork (and read on the source); {@code POST} append, with {@code
 * Stream-Closed: true} and no body close (with a body, both); {@code GET} read, {@code HEAD} head,
 * {@code DELETE} delete.
 */
public final class DsAccess implements RequestNeeds {

  public static final DsAccess INSTANCE = new DsAccess();
  private static final String BASE = "/v1/stream";

  private DsAccess() {}

  @Override
  public Need need(HttpRequest head, String path, boolean mayHaveBody) {
    String method = head.method().name();
    if (method.equals("OPTIONS")) {
      return Need.OPEN;
    }
    if (!path.startsWith(BASE + "/")) {
      return Need.ANY_CREDENTIAL;
    }
    String name = path.substring(BASE.length());
    HttpHeaders headers = head.headers();
    return switch (method) {
      case "PUT" -> put(headers, name);
      case "POST" -> post(headers, name, mayHaveBody);
      case "GET" -> Need.OnStreams.of(Verb.READ, name);
      case "HEAD" -> Need.OnStreams.of(Verb.HEAD, name);
      case "DELETE" -> Need.OnStreams.of(Verb.DELETE, name);
      default -> Need.ANY_CREDENTIAL;
    };
  }

  private static Need put(HttpHeaders headers, String name) {
    String forkedFrom = headers.get("Stream-Forked-From");
    if (forkedFrom == null) {
      return Need.OnStreams.of(Verb.CREATE, name);
    }
    String source = forkedFrom.strip();
    if (source.startsWith(BASE + "/")) {
      source = source.substring(BASE.length());
    }
    return new Need.OnStreams(
        List.of(new Need.Grant(Verb.FORK, name), new Need.Grant(Verb.READ, source)));
  }

  private static Need post(HttpHeaders headers, String name, boolean mayHaveBody) {
    if (!"true".equalsIgnoreCase(headers.get("Stream-Closed"))) {
      return Need.OnStreams.of(Verb.APPEND, name);
    }
    return mayHaveBody
        ? new Need.OnStreams(
            List.of(new Need.Grant(Verb.APPEND, name), new Need.Grant(Verb.CLOSE, name)))
        : Need.OnStreams.of(Verb.CLOSE, name);
  }
}
