package io.picomq.stream;

/**
 * Decides where a request for a stream is served; both frontends call it before dispatching a
 * request that names a stream. It reads the node's in-memory view, and waits only for a view at
 * least as new as one the request says another node routed it with.
 */
@FunctionalInterface
public interface StreamRouter {

  /**
   * @param seen the position of the view another node routed this request with (named in its
   *     redirect), 0 for none: the decision is taken on a view at least that new, so two nodes
   *     whose views differ do not send a request back and forth (best effort: a view that does not
   *     catch up in time decides as it is)
   */
  Route route(String streamName, long seen);

  /** Where to serve {@code streamName} by the view at hand. */
  default Route route(String streamName) {
    return route(streamName, 0);
  }

  /** Serves everything locally ({@code --routing local}). */
  StreamRouter LOCAL = (name, seen) -> Route.LOCAL;
}
