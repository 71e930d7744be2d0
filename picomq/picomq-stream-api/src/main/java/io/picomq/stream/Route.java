package io.picomq.stream;

/** Where a request for a stream is served. */
public sealed interface Route {

  /** Serve it on this node. */
  record Local() implements Route {}

  /**
   * Another node serves it: answer {@code 307} to {@code baseUrl} + the request's path and query.
   *
   * @param nodeId the node that serves it
   * @param baseUrl that node's advertised address, e.g. {@code http://10.0.0.2:4437}
   */
  record Redirect(int nodeId, String baseUrl) implements Route {}

  Route LOCAL = new Local();
}
