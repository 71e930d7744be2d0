package io.picomq.frontend.http;

import io.netty.handler.codec.http.HttpMethod;
import java.time.Duration;

/**
 * Told about every request a frontend finished: the hook a node uses for request metrics. It sees
 * the protocol and the method, never the stream name, so what it records stays bounded.
 *
 * <p>Called once per request, on a Netty or virtual thread, after the response is written, failed,
 * or the client left ({@code status} 0 when nothing was answered). It must not block.
 */
@FunctionalInterface
public interface RequestObserver {

  /** Observes nothing. */
  RequestObserver NONE = (protocol, method, status, elapsed) -> {};

  void finished(String protocol, HttpMethod method, int status, Duration elapsed);
}
