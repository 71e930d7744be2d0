package io.picomq.frontend.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.picomq.frontend.http.ConnectionBudget.CloseReason;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection that is slow to send a request or idle too long: the first handler of every
 * admitted connection, so it sees raw bytes before any decoding.
 *
 * <p>Design. A connection is in one phase at a time, each with at most one deadline:
 *
 * <ul>
 *   <li>{@code AWAITING_HEADERS}: from the accept, and on HTTP/1.1 from the first byte after an
 *       idle spell. Deadline: start plus the header timeout. Ends when a request's headers are
 *       decoded.
 *   <li>{@code RECEIVING}: headers decoded, the body still arriving. Deadline: the last decoded
 *       request part plus the idle timeout, so a body may take long but may not stall.
 *   <li>{@code BUSY}: at least one exchange in flight, from dispatch until its response is fully
 *       written. No deadline: a long-poll or an SSE response lasts as long as it needs.
 *   <li>{@code IDLE}: no exchange in flight since the last response finished. Deadline: that moment
 *       plus the idle timeout.
 *   <li>{@code CLOSING}: closed by the server after a request ({@link #close}): the output is shut,
 *       what the client still sends is dropped. Deadline: that moment plus {@link #LINGER_NANOS},
 *       or sooner once {@link #LINGER_MAX_BYTES} were dropped; the client's own close ends it.
 * </ul>
 *
 * On HTTP/2 bytes alone (PING, SETTINGS, WINDOW_UPDATE) never leave {@code IDLE}, or a client could
 * hold a connection by pinging; only a decoded request part does. A HEADERS frame trickled byte by
 * byte is therefore bounded by the idle timeout. The first request of every connection, whatever
 * its protocol, is bounded by the header timeout from the accept (an HTTP/2 preface included).
 *
 * <p>One timer at a time: it is scheduled for the earliest deadline and, when it fires, compares
 * the current deadline (which may have moved later meanwhile) before closing, as Netty's {@code
 * IdleStateHandler} does; a deadline moved earlier reschedules it.
 *
 * <p>Threading: every field is owned by the connection's event loop. HTTP/2 stream channels share
 * their parent's loop, so {@link RequestProgress} and the dispatcher call in on it too.
 */
final class ConnectionGuard extends ChannelDuplexHandler {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
  private static final AttributeKey<ConnectionGuard> KEY =
      AttributeKey.valueOf(ConnectionGuard.class, "guard");

  private enum Phase {
    AWAITING_HEADERS,
    RECEIVING,
    BUSY,
    IDLE,
    CLOSING
  }

  /** How long a connection closing after its answer keeps dropping what the client still sends. */
  private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(2);

  private static final long LINGER_MAX_BYTES = 4 << 20;

  private final ConnectionLimits limits;
  private final ConnectionBudget budget;
  private final BooleanSupplier draining;

  // Owned by the event loop.
  private ChannelHandlerContext ctx;
  private Phase phase = Phase.AWAITING_HEADERS;
  private long deadlineNanos;
  private int inFlight;
  private boolean http2;
  private ScheduledFuture<?> timer;
  private long timerAtNanos;
  private long droppedBytes;
  private boolean requestSeen;

  /**
   * @param draining whether the listener is shutting down, when every close is immediate
   */
  ConnectionGuard(ConnectionLimits limits, ConnectionBudget budget, BooleanSupplier draining) {
    this.limits = limits;
    this.budget = budget;
    this.draining = draining;
  }

  /** The guard of the connection {@code channel} belongs to (itself, or an HTTP/2 stream's). */
  static ConnectionGuard of(Channel channel) {
    Channel connection = channel instanceof Http2StreamChannel ? channel.parent() : channel;
    ConnectionGuard guard = connection.attr(KEY).get();
    if (guard == null) {
      throw new IllegalStateException(connection + " has no connection guard");
    }
    return guard;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    ctx.channel().attr(KEY).set(this);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    enter(Phase.AWAITING_HEADERS, limits.headerTimeout().toNanos());
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancelTimer();
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (phase == Phase.CLOSING) {
      if (msg instanceof ByteBuf bytes) {
        droppedBytes += bytes.readableBytes();
      }
      ReferenceCountUtil.release(msg);
      if (droppedBytes > LINGER_MAX_BYTES) {
        ctx.close();
      }
      return;
    }
    if (phase == Phase.IDLE && !http2) {
      // The first byte of the next HTTP/1.1 request: its headers are due within the timeout.
      enter(Phase.AWAITING_HEADERS, limits.headerTimeout().toNanos());
    }
    ctx.fireChannelRead(msg);
  }

  /** The connection speaks HTTP/2 from now on (prior knowledge or an accepted upgrade). */
  void http2() {
    http2 = true;
  }

  /**
   * Closes an HTTP/1.1 connection that has carried a request without resetting it. Closing a socket
   * with unread input sends a TCP reset, which can reach the client before it has read the answer,
   * or while it is still writing its request (a 431 comes before the rest of a large head, a 413
   * before the rest of the body): it would see "connection reset" instead of the 4xx. So the output
   * is shut instead (after TLS's close_notify), and what still arrives is dropped until the client
   * closes too, for at most {@link #LINGER_NANOS} and {@link #LINGER_MAX_BYTES}. The promise
   * completes once the connection is closed.
   *
   * <p>Closed at once: an HTTP/2 connection (its codec has sent GOAWAY), a connection that never
   * decoded a request (a failed TLS handshake), and every connection once the listener drains. The
   * guard's own closes (timeouts, the end of the linger) start below it and are never lingered.
   */
  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (draining.getAsBoolean()) {
      ctx.close(promise);
      return;
    }
    if (phase == Phase.CLOSING) {
      ctx.channel().closeFuture().addListener(closed -> promise.trySuccess());
      return;
    }
    if (http2
        || !requestSeen
        || !ctx.channel().isActive()
        || !(ctx.channel() instanceof DuplexChannel connection)) {
      ctx.close(promise);
      return;
    }
    cancelTimer();
    enter(Phase.CLOSING, LINGER_NANOS);
    ctx.channel().closeFuture().addListener(closed -> promise.trySuccess());
    SslHandler tls = ctx.pipeline().get(SslHandler.class);
    if (tls == null) {
      connection.shutdownOutput();
    } else {
      tls.closeOutbound().addListener(sent -> connection.shutdownOutput());
    }
  }

  /** A request's headers or a part of its body were decoded. */
  void requestProgress() {
    requestSeen = true;
    if (phase == Phase.CLOSING) {
      return;
    }
    if (phase != Phase.BUSY) {
      enter(Phase.RECEIVING, limits.idleTimeout().toNanos());
    }
  }

  /** An exchange was dispatched: no deadline until every exchange has finished. */
  void requestStarted() {
    inFlight++;
    if (phase != Phase.CLOSING) {
      phase = Phase.BUSY;
    }
  }

  /** An exchange's response was fully written, or failed to be. */
  void requestFinished() {
    inFlight--;
    if (inFlight == 0 && phase != Phase.CLOSING) {
      enter(Phase.IDLE, limits.idleTimeout().toNanos());
    }
  }

  private void enter(Phase next, long timeoutNanos) {
    phase = next;
    deadlineNanos = System.nanoTime() + timeoutNanos;
    if (timer != null && timerAtNanos - deadlineNanos > 0) {
      cancelTimer();
    }
    if (timer == null) {
      schedule(deadlineNanos);
    }
  }

  private void schedule(long atNanos) {
    timerAtNanos = atNanos;
    timer =
        ctx.executor().schedule(this::expire, atNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private void expire() {
    timer = null;
    if (phase == Phase.BUSY || !ctx.channel().isActive()) {
      return;
    }
    if (deadlineNanos - System.nanoTime() > 0) {
      schedule(deadlineNanos);
      return;
    }
    if (phase == Phase.CLOSING) {
      ctx.close();
      return;
    }
    CloseReason reason =
        phase == Phase.AWAITING_HEADERS ? CloseReason.HEADER_TIMEOUT : CloseReason.IDLE_TIMEOUT;
    budget.closedFor(reason);
    LOG.debug("closing {}: {}", ctx.channel(), reason);
    // From the head of the pipeline: no HTTP/2 GOAWAY and no graceful wait for half-sent streams.
    ctx.close();
  }

  /**
   * Tells the connection's guard about decoded request parts. Sits before the aggregator, on the
   * HTTP/1.1 connection or on each HTTP/2 stream.
   */
  @Sharable
  static final class RequestProgress extends ChannelInboundHandlerAdapter {
    static final RequestProgress INSTANCE = new RequestProgress();

    private RequestProgress() {}

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof HttpObject) {
        of(ctx.channel()).requestProgress();
      }
      ctx.fireChannelRead(msg);
    }
  }
}
