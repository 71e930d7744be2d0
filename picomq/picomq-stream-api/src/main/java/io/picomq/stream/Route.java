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
   * @param view the position of the view that decided it, for the next node's {@link
   *     StreamRouter#route(String, long)}
   */
  record Redirect(int nodeId, String baseUrl, long view) implements Route {}

  /**
   * The node that had the stream open stopped (its liveness lapsed, or it restarted and has not
   * recovered yet): no node may serve the stream until that node's WAL is recovered and the stream
   * closed at the recovered end. Answer {@code 503} with {@code Retry-After}; never redirect to it.
   *
   * @param nodeId the node whose WAL is being recovered
   */
  record Recovering(int nodeId) implements Route {}

  Route LOCAL = new Local();
}
