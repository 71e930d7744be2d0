package io.picomq.frontend.http;

/**
 * A protocol: turns requests into responses. The listener calls it on a virtual thread, one call
 * per request, so it may block (join a future) without holding up an event loop. It must eventually
 * answer every exchange exactly once, either with {@link Exchange#respond} or by opening and ending
 * a {@link Exchange#stream}; it may do so later, from any thread.
 */
@FunctionalInterface
public interface RequestHandler {

  void handle(Exchange exchange);
}
