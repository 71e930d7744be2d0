package io.picomq.frontend;

import io.picomq.frontend.access.AccessCheck;
import io.picomq.frontend.access.Audience;
import io.picomq.frontend.access.Credentials;
import io.picomq.frontend.access.DsAccess;
import io.picomq.frontend.access.PicoAccess;
import io.picomq.frontend.ds.DurableStreamsHandler;
import io.picomq.frontend.http.AccessControl;
import io.picomq.frontend.http.ConnectionBudget;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.http.HttpListener;
import io.picomq.frontend.http.RequestHandler;
import io.picomq.frontend.http.RequestObserver;
import io.picomq.frontend.http.RoutingHandler;
import io.picomq.frontend.pico.PicoHandler;
import io.picomq.stream.StreamRouter;
import io.picomq.stream.StreamService;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A running protocol listener: what the node starts with a port, a protocol and its stream service.
 * {@link #shutdown} drains it gracefully.
 */
public final class Frontend implements AutoCloseable {

  private final HttpListener listener;
  private final ExecutorService continuations;

  private Frontend(HttpListener listener, ExecutorService continuations) {
    this.listener = listener;
    this.continuations = continuations;
  }

  /** Binds and serves {@link FrontendConfig#protocol}. Throws if the address cannot be bound. */
  public static Frontend start(FrontendConfig config, StreamService service, InstantSource clock)
      throws InterruptedException {
    return start(config, service, clock, StreamRouter.LOCAL);
  }

  /**
   * As {@link #start(FrontendConfig, StreamService, InstantSource)}, with the routing step: each
   * request naming a stream asks {@code router} first and is redirected when another node serves
   * the stream.
   */
  public static Frontend start(
      FrontendConfig config, StreamService service, InstantSource clock, StreamRouter router)
      throws InterruptedException {
    return start(config, service, clock, router, RequestObserver.NONE);
  }

  /**
   * As {@link #start(FrontendConfig, StreamService, InstantSource, StreamRouter)}, telling {@code
   * observer} about every finished request (redirects included).
   */
  public static Frontend start(
      FrontendConfig config,
      StreamService service,
      InstantSource clock,
      StreamRouter router,
      RequestObserver observer)
      throws InterruptedException {
    return start(config, service, clock, router, observer, Optional.empty());
  }

  /**
   * As {@link #start(FrontendConfig, StreamService, InstantSource, StreamRouter, RequestObserver)},
   * with access control when {@code credentials} are given: each request is checked on its head,
   * before routing and before its body is read ({@link AccessCheck}).
   */
  public static Frontend start(
      FrontendConfig config,
      StreamService service,
      InstantSource clock,
      StreamRouter router,
      RequestObserver observer,
      Optional<Credentials> credentials)
      throws InterruptedException {
    boolean ds = config.protocol() == ListenerProtocol.DS;
    ExecutorService continuations =
        Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name(ds ? "picomq-ds-" : "picomq-pico-", 0).factory());
    RequestHandler handler =
        ds
            ? new DurableStreamsHandler(
                service, config.liveOptions(), clock, new SecureRandom(), continuations)
            : new PicoHandler(service, config.liveOptions(), clock, continuations);
    HttpListener listener;
    try {
      listener =
          HttpListener.start(
              new HttpListener.Options(
                  config.host(),
                  config.port(),
                  config.limits(),
                  ds ? DurableStreamsHandler.commonHeaders() : PicoHandler.commonHeaders(),
                  config.ioThreads(),
                  config.backlog(),
                  config.connectionLimits(),
                  config.allowedHosts(),
                  ds
                      ? DurableStreamsHandler.cors(
                          config.corsOrigins(), FrontendConfig.CORS_SETTING)
                      : PicoHandler.cors(config.corsOrigins(), FrontendConfig.CORS_SETTING),
                  config.tls(),
                  credentials
                      .<AccessControl>map(
                          known ->
                              new AccessCheck(
                                  known,
                                  ds ? Audience.DURABLE_STREAMS : Audience.PICO,
                                  ds ? DsAccess.INSTANCE : PicoAccess.INSTANCE,
                                  clock))
                      .orElse(AccessControl.OPEN)),
              observed(
                  ds ? "ds" : "pico",
                  observer,
                  new RoutingHandler(
                      router, ds ? Frontend::dsStreamName : Frontend::picoStreamName, handler)));
    } catch (InterruptedException | RuntimeException e) {
      continuations.shutdownNow();
      throw e;
    }
    return new Frontend(listener, continuations);
  }

  /**
   * Wraps {@code handler} so {@code observer} hears of each request once it is over: the exchange's
   * {@link Exchange#done} completes when the response is written or failed to be.
   */
  private static RequestHandler observed(
      String protocol, RequestObserver observer, RequestHandler handler) {
    if (observer == RequestObserver.NONE) {
      return handler;
    }
    return exchange -> {
      long started = System.nanoTime();
      exchange
          .done()
          .whenComplete(
              (ignored, failure) ->
                  observer.finished(
                      protocol,
                      exchange.method(),
                      exchange.status(),
                      Duration.ofNanos(System.nanoTime() - started)));
      handler.handle(exchange);
    };
  }

  /** The stream a Durable Streams path names ({@code /v1/stream/a/b} is {@code /a/b}). */
  private static Optional<String> dsStreamName(String path) {
    return path.startsWith(DurableStreamsHandler.BASE_PATH + "/")
        ? Optional.of(path.substring(DurableStreamsHandler.BASE_PATH.length()))
        : Optional.empty();
  }

  /** The stream a Pico protocol path names: the path itself, except the listing at {@code /}. */
  private static Optional<String> picoStreamName(String path) {
    return path.equals("/") ? Optional.empty() : Optional.of(path);
  }

  public InetSocketAddress address() {
    return listener.address();
  }

  /** The listener's open connections against its cap, and those it closed, by reason. */
  public ConnectionBudget connections() {
    return listener.connections();
  }

  /** Stops accepting, drains in-flight requests for up to {@code drain}, then closes. */
  public CompletableFuture<Void> shutdown(Duration drain) {
    return listener.shutdown(drain).whenComplete((ignored, failure) -> continuations.shutdownNow());
  }

  @Override
  public void close() {
    shutdown(Duration.ZERO).join();
  }
}
