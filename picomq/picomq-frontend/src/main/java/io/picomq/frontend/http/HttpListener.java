package io.picomq.frontend.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.picomq.frontend.tls.ServerTls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One listening socket serving HTTP/1.1 and HTTP/2 for one {@link RequestHandler}: in cleartext, or
 * over TLS with the protocol chosen by ALPN ({@link ChannelSetup}).
 *
 * <p>Connections ({@link ConnectionLimits}): one accepted beyond the cap gets a 503 and is closed
 * at once; an admitted one is closed when a request's headers are late or when it has been idle too
 * long ({@link ConnectionGuard}).
 *
 * <p>Threads: a Netty acceptor thread, {@code ioThreads} event loops for the connections, and a
 * virtual thread per request for the handler. No handler code runs on an event loop.
 *
 * <p>Shutdown ({@link #shutdown}): stop accepting; interrupt live exchanges (long-polls answer, SSE
 * streams end); let in-flight requests finish for up to the drain period (HTTP/1.1 responses
 * meanwhile carry {@code Connection: close}); then close every connection and stop the threads.
 */
public final class HttpListener implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HttpListener.class);

  private final EventLoopGroup acceptor;
  private final EventLoopGroup workers;
  private final ExecutorService handlerExecutor;
  private final ChannelGroup connections;
  private final ListenerState state;
  private final Channel serverChannel;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  /**
   * Where and how to listen.
   *
   * @param host the address to bind, e.g. {@code 127.0.0.1}
   * @param port the port, 0 for any free one
   * @param limits request limits
   * @param commonHeaders added to every response, errors included
   * @param ioThreads event loop threads for connections, at least 1
   * @param backlog the accept queue's length
   * @param connectionLimits header and idle timeouts, and the cap on open connections
   * @param allowedHosts the {@code Host} values answered; others get {@code 421}
   * @param cors what browsers are told about calls from pages of other origins
   * @param tls the certificate to serve TLS with (h2 and http/1.1 through ALPN), empty for
   *     cleartext (HTTP/1.1, h2c prior knowledge and upgrade)
   * @param access decides each request on its head ({@link AccessControl#OPEN} lets all in)
   */
  public record Options(
      String host,
      int port,
      HttpLimits limits,
      Map<String, String> commonHeaders,
      int ioThreads,
      int backlog,
      ConnectionLimits connectionLimits,
      AllowedHosts allowedHosts,
      CorsPolicy cors,
      Optional<ServerTls> tls,
      AccessControl access) {

    /** Options for a cleartext listener without access control. */
    public Options(
        String host,
        int port,
        HttpLimits limits,
        Map<String, String> commonHeaders,
        int ioThreads,
        int backlog,
        ConnectionLimits connectionLimits,
        AllowedHosts allowedHosts,
        CorsPolicy cors) {
      this(
          host,
          port,
          limits,
          commonHeaders,
          ioThreads,
          backlog,
          connectionLimits,
          allowedHosts,
          cors,
          Optional.empty(),
          AccessControl.OPEN);
    }

    public Options {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(limits, "limits");
      Objects.requireNonNull(connectionLimits, "connectionLimits");
      Objects.requireNonNull(allowedHosts, "allowedHosts");
      Objects.requireNonNull(cors, "cors");
      Objects.requireNonNull(tls, "tls");
      Objects.requireNonNull(access, "access");
      commonHeaders = Map.copyOf(commonHeaders);
      if (port < 0 || port > 65535 || ioThreads < 1 || backlog < 1) {
        throw new IllegalArgumentException(
            "need 0 <= port <= 65535, ioThreads >= 1, backlog >= 1: port="
                + port
                + " ioThreads="
                + ioThreads
                + " backlog="
                + backlog);
      }
    }
  }

  private HttpListener(Options options, RequestHandler handler) throws InterruptedException {
    acceptor = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    workers = new MultiThreadIoEventLoopGroup(options.ioThreads(), NioIoHandler.newFactory());
    handlerExecutor =
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("picomq-http-", 0).factory());
    connections = new DefaultChannelGroup("picomq-http", GlobalEventExecutor.INSTANCE);
    HttpHeaders common = new DefaultHttpHeaders();
    // AsciiString values: the encoder copies their bytes at once instead of char by char.
    options.commonHeaders().forEach((name, value) -> common.set(name, AsciiString.cached(value)));
    state =
        new ListenerState(
            handler,
            handlerExecutor,
            options.limits(),
            common,
            options.connectionLimits(),
            options.allowedHosts(),
            options.cors(),
            options.tls(),
            options.access());
    try {
      serverChannel =
          new ServerBootstrap()
              .group(acceptor, workers)
              .channelFactory(() -> new GatedServerChannel(state))
              .option(ChannelOption.SO_BACKLOG, options.backlog())
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(new ChannelSetup(state, connections))
              .bind(options.host(), options.port())
              .sync()
              .channel();
    } catch (InterruptedException | RuntimeException e) {
      stopThreads();
      throw e;
    }
  }

  /** Binds and starts serving; throws if the address cannot be bound. */
  public static HttpListener start(Options options, RequestHandler handler)
      throws InterruptedException {
    return new HttpListener(options, handler);
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  /** Open connections against the cap, and the connections closed by the server, by reason. */
  public ConnectionBudget connections() {
    return state.connections;
  }

  /** Requests that have not finished their response. */
  public int inFlight() {
    return state.inFlight.count();
  }

  /**
   * Shuts down gracefully, waiting up to {@code drain} for in-flight requests. Returns at once; the
   * future completes when everything is closed. Calling again returns the same future.
   */
  public CompletableFuture<Void> shutdown(Duration drain) {
    if (stopping.compareAndSet(false, true)) {
      Thread.ofVirtual().name("picomq-http-shutdown").start(() -> drainAndStop(drain));
    }
    return stopped;
  }

  /** Shuts down without a drain period and waits for it. */
  @Override
  public void close() {
    shutdown(Duration.ZERO).join();
  }

  private void drainAndStop(Duration drain) {
    try {
      serverChannel.close().awaitUninterruptibly();
      state.startDraining();
      // Interrupted exchanges still need a moment to write their last bytes.
      Duration wait = drain.isZero() ? Duration.ofMillis(200) : drain;
      if (!state.inFlight.awaitIdle(wait)) {
        LOG.warn("closing {} requests still in flight after the drain", state.inFlight.count());
      }
      connections.close().awaitUninterruptibly();
      stopThreads();
      stopped.complete(null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopped.completeExceptionally(e);
    } catch (RuntimeException e) {
      stopped.completeExceptionally(e);
    }
  }

  private void stopThreads() {
    acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    handlerExecutor.shutdownNow();
  }
}
