package io.picomq.stream;

/**
 * Decides where a request for a stream is served; both frontends call it before dispatching a
 * request that names a stream. Never blocks: it reads the node's in-memory view.
 */
@FunctionalInterface
public interface StreamRouter {

  Route route(String streamName);

  /** Serves everything locally ({@code --routing local}). */
  StreamRouter LOCAL = name -> Route.LOCAL;
}
