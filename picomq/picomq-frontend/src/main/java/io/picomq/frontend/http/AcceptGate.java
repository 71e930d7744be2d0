package io.picomq.frontend.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Decides, on the acceptor thread, whether an accepted connection gets a place under the cap. It
 * sits on the listening channel, before Netty hands each new connection to an event loop.
 *
 * <p>Why here and not in the connection's own setup: the acceptor accepts much faster than loaded
 * event loops set connections up, so under a flood thousands of accepted sockets could wait in
 * their queues, each holding a descriptor, and exhaust the process's limit (measured: a node with
 * 512 descriptors and a cap of 320 hit {@code Too many open files} on accept while 2,000
 * connections arrived). Counted here, the descriptors the listener holds are at most the cap plus
 * {@link #ANSWERING}: a refused connection is answered 503 by an event loop while fewer than that
 * many refusals are on their way; beyond, it is closed at once, on this thread, without an answer.
 *
 * <p>Threading: {@link #channelRead} runs on the acceptor thread; the counters are atomic, since
 * connections close on the event loops.
 */
final class AcceptGate extends ChannelInboundHandlerAdapter {

  /** Refused connections that may wait for their 503 at once. */
  static final int ANSWERING = 32;

  /** Set on a refused connection that is to get its 503 (ChannelSetup installs the answer). */
  static final AttributeKey<AcceptGate> REFUSED = AttributeKey.valueOf(AcceptGate.class, "refused");

  private final ConnectionBudget budget;
  private final AtomicInteger answering = new AtomicInteger();

  AcceptGate(ConnectionBudget budget) {
    this.budget = budget;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    Channel connection = (Channel) msg;
    if (!budget.tryAdmit()) {
      if (answering.incrementAndGet() > ANSWERING) {
        answering.decrementAndGet();
        // Not registered with an event loop yet: this closes the socket here and now.
        connection.unsafe().closeForcibly();
        return;
      }
      connection.attr(REFUSED).set(this);
    }
    ctx.fireChannelRead(connection);
  }

  /** A refused connection got its answer, or failed to, and is closed. */
  void answered() {
    answering.decrementAndGet();
  }
}
