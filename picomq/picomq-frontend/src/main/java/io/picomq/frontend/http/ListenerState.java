package io.picomq.frontend.http;

import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.tls.ServerTls;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;

/**
 * What every connection of one listener shares. Immutable except for the live-exchange set, the
 * draining flag and the connection budget, all safe for any thread.
 */
final class ListenerState {

  final RequestHandler handler;
  final ExecutorService handlerExecutor;
  final HttpLimits limits;
  final HttpHeaders commonHeaders;
  final ConnectionLimits connectionLimits;
  final AllowedHosts allowedHosts;
  final CorsPolicy cors;
  final Optional<ServerTls> tls;
  final AccessControl access;
  final ConnectionBudget connections;
  final InFlight inFlight = new InFlight();

  /** Exchanges whose response has not finished; shutdown interrupts them. */
  private final Set<Exchange> live = ConcurrentHashMap.newKeySet();

  private volatile boolean draining;

  ListenerState(
      RequestHandler handler,
      ExecutorService handlerExecutor,
      HttpLimits limits,
      HttpHeaders commonHeaders,
      ConnectionLimits connectionLimits,
      AllowedHosts allowedHosts,
      CorsPolicy cors,
      Optional<ServerTls> tls,
      AccessControl access) {
    this.handler = handler;
    this.handlerExecutor = handlerExecutor;
    this.limits = limits;
    this.commonHeaders = commonHeaders;
    this.connectionLimits = connectionLimits;
    this.allowedHosts = allowedHosts;
    this.cors = cors;
    this.tls = tls;
    this.access = access;
    this.connections = new ConnectionBudget(connectionLimits.maxConnections());
  }

  boolean draining() {
    return draining;
  }

  void began(Exchange exchange) {
    inFlight.begin();
    live.add(exchange);
    if (draining) {
      exchange.interrupt();
    }
  }

  void finished(Exchange exchange) {
    if (live.remove(exchange)) {
      inFlight.end();
    }
  }

  /** From now on every exchange, present and future, is told to wind down. */
  void startDraining() {
    draining = true;
    live.forEach(Exchange::interrupt);
  }
}
