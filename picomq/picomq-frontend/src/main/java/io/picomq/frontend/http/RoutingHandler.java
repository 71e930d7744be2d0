package io.picomq.frontend.http;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringEncoder;
import io.picomq.stream.Route;
import io.picomq.stream.StreamRouter;
import io.picomq.stream.StreamUnavailableException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The routing step in front of a protocol: a request naming a stream that another node serves is
 * answered {@code 307} to that node (same path and query, plus {@value #VIEW_PARAMETER}: the
 * position of the view that decided, which the next node routes with at least); one naming a stream
 * under recovery is answered {@code 503} with {@code Retry-After}; everything else goes to the
 * protocol, which ignores {@value #VIEW_PARAMETER}.
 */
public final class RoutingHandler implements RequestHandler {
  /** The query parameter a redirect adds to its {@code Location}; see {@link StreamRouter}. */
  private static final String VIEW_PARAMETER = "pico-view";

  private final StreamRouter router;
  private final Function<String, Optional<String>> streamNameOf;
  private final RequestHandler protocol;

  /**
   * @param streamNameOf the stream a request path names, empty for paths that name none
   */
  public RoutingHandler(
      StreamRouter router,
      Function<String, Optional<String>> streamNameOf,
      RequestHandler protocol) {
    this.router = router;
    this.streamNameOf = streamNameOf;
    this.protocol = protocol;
  }

  @Override
  public void handle(Exchange exchange) {
    Optional<String> name = streamNameOf.apply(exchange.path());
    Route route = name.isPresent() ? router.route(name.get(), seenView(exchange)) : Route.LOCAL;
    if (route instanceof Route.Recovering(int nodeId)) {
      Unavailable.respond(
          exchange,
          new StreamUnavailableException(
              StreamUnavailableException.Reason.RECOVERING,
              false,
              "the stream was open on node "
                  + nodeId
                  + ", which stopped; it serves again once that node's WAL is recovered",
              null));
      return;
    }
    if (route instanceof Route.Redirect(int nodeId, String baseUrl, long view)) {
      QueryStringEncoder location = new QueryStringEncoder(baseUrl + exchange.rawPath());
      for (Map.Entry<String, List<String>> parameter : exchange.query().entrySet()) {
        if (parameter.getKey().equals(VIEW_PARAMETER)) {
          continue;
        }
        for (String value : parameter.getValue()) {
          location.addParam(parameter.getKey(), value);
        }
      }
      location.addParam(VIEW_PARAMETER, Long.toString(view));
      HttpHeaders headers = new DefaultHttpHeaders();
      headers.set(HttpHeaderNames.LOCATION, location.toString());
      headers.set("Pico-Node", Integer.toString(nodeId));
      exchange.respond(
          HttpResponseStatus.TEMPORARY_REDIRECT,
          headers,
          ("stream served by node " + nodeId + "\n").getBytes(StandardCharsets.UTF_8));
      return;
    }
    protocol.handle(exchange);
  }

  /** The view position a redirect named, 0 if none (or not a number: then it is only a hop). */
  private static long seenView(Exchange exchange) {
    List<String> values = exchange.query().getOrDefault(VIEW_PARAMETER, List.of());
    if (values.size() != 1) {
      return 0;
    }
    try {
      return Math.max(0, Long.parseLong(values.getFirst()));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
