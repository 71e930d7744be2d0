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
 * answered {@code 307} to that node (same path and query); one naming a stream under recovery is
 * answered {@code 503} with {@code Retry-After}; everything else goes to the protocol.
 */
public final class RoutingHandler implements RequestHandler {
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
    Route route = name.isPresent() ? router.route(name.get()) : Route.LOCAL;
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
    if (route instanceof Route.Redirect(int nodeId, String baseUrl)) {
      QueryStringEncoder location = new QueryStringEncoder(baseUrl + exchange.rawPath());
      for (Map.Entry<String, List<String>> parameter : exchange.query().entrySet()) {
        for (String value : parameter.getValue()) {
          location.addParam(parameter.getKey(), value);
        }
      }
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
}
