package io.picomq.frontend.access;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.picomq.protocol.PicoHeaders;
import java.util.List;

/**
 * The verb each Pico request needs: {@code GET /} list (over its {@code prefix}); on a stream,
 * {@code PUT} create, {@code POST} append, or trim with {@code Pico-Trim-Seq}, or close with {@code
 * Pico-Closed: true} (and append too when it carries a body), {@code GET} read, {@code HEAD} head,
 * {@code DELETE} delete.
 */
public final class PicoAccess implements RequestNeeds {

  public static final PicoAccess INSTANCE = new PicoAccess();

  private PicoAccess() {}

  @Override
  public Need need(HttpRequest head, String path, boolean mayHaveBody) {
    String method = head.method().name();
    if (method.equals("OPTIONS")) {
      return Need.OPEN;
    }
    if (path.equals("/")) {
      if (!method.equals("GET")) {
        return Need.ANY_CREDENTIAL;
      }
      List<String> prefix = new QueryStringDecoder(head.uri()).parameters().get("prefix");
      return new Need.Listing(prefix == null || prefix.isEmpty() ? "" : prefix.get(0));
    }
    return switch (method) {
      case "PUT" -> Need.OnStreams.of(Verb.CREATE, path);
      case "POST" -> post(head.headers(), path, mayHaveBody);
      case "GET" -> Need.OnStreams.of(Verb.READ, path);
      case "HEAD" -> Need.OnStreams.of(Verb.HEAD, path);
      case "DELETE" -> Need.OnStreams.of(Verb.DELETE, path);
      default -> Need.ANY_CREDENTIAL;
    };
  }

  private static Need post(HttpHeaders headers, String path, boolean mayHaveBody) {
    if (headers.contains(PicoHeaders.TRIM_SEQ)) {
      return Need.OnStreams.of(Verb.TRIM, path);
    }
    if ("true".equalsIgnoreCase(headers.get(PicoHeaders.CLOSED))) {
      return mayHaveBody
          ? new Need.OnStreams(
              List.of(new Need.Grant(Verb.APPEND, path), new Need.Grant(Verb.CLOSE, path)))
          : Need.OnStreams.of(Verb.CLOSE, path);
    }
    return Need.OnStreams.of(Verb.APPEND, path);
  }
}
