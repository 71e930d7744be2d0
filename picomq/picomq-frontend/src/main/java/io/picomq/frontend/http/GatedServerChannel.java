package io.picomq.frontend.http;

import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The listening channel, which applies the connection cap as it accepts, on the acceptor thread: an
 * admitted socket becomes a channel for an event loop; one beyond the cap gets its 503 written
 * straight to the socket and is closed, never becoming a channel at all.
 *
 * <p>Why at accept, and why without a channel: the acceptor accepts much faster than loaded event
 * loops set connections up, and the JDK releases the descriptor of a socket that was registered
 * with a selector only at that selector's next select, so a refused connection handed to a busy
 * event loop holds its descriptor well after it is closed. Measured on a node with 512 descriptors
 * and a cap of 320, flooded with 1,500 connections: over 400 sockets open at once and {@code Too
 * many open files} on accept, with the refusals answered on event loops. Refused here, the sockets
 * the listener holds are the cap plus the one being refused.
 *
 * <p>Threading: {@link #doReadMessages} runs on the acceptor thread; the budget is atomic, since
 * admitted connections close on the event loops.
 */
final class GatedServerChannel extends NioServerSocketChannel {

  /** Refusals between two looks at the selector, so a flood cannot hold the acceptor forever. */
  private static final int REFUSALS_PER_READ = 64;

  private final ConnectionBudget budget;
  private final ByteBuffer refusal;

  GatedServerChannel(ListenerState state) {
    this.budget = state.connections;
    this.refusal = ByteBuffer.wrap(refusal(state)).asReadOnlyBuffer();
  }

  @Override
  protected int doReadMessages(List<Object> accepted) throws Exception {
    for (int refused = 0; refused < REFUSALS_PER_READ; refused++) {
      SocketChannel socket = javaChannel().accept();
      if (socket == null) {
        return 0;
      }
      if (budget.tryAdmit()) {
        accepted.add(new NioSocketChannel(this, socket));
        return 1;
      }
      refuse(socket);
    }
    return 0; // more may be waiting: the selector reports them again at once
  }

  /**
   * Writes the 503 without waiting (a new socket's send buffer takes it whole; a peer that left no
   * room gets none) and closes the socket, which releases its descriptor at once: it never met a
   * selector. Nothing the client sent is read.
   */
  private void refuse(SocketChannel socket) {
    try (socket) {
      socket.configureBlocking(false);
      socket.write(refusal.duplicate());
    } catch (IOException ignored) {
      // The peer left already: nothing to answer.
    }
  }

  /**
   * The whole answer to a connection beyond the cap, in HTTP/1.1: most clients speak it first, and
   * an HTTP/2 client reads a connection error, which is what a refusal is. Nothing on a TLS
   * listener.
   */
  private static byte[] refusal(ListenerState state) {
    if (state.tls.isPresent()) {
      // A TLS client cannot read a cleartext answer: it sees the connection closed.
      return new byte[0];
    }
    byte[] body =
        JsonError.body(
            "too_many_connections",
            "the server holds its maximum of "
                + state.connectionLimits.maxConnections()
                + " connections; retry shortly");
    StringBuilder head =
        new StringBuilder("HTTP/1.1 503 Service Unavailable\r\n")
            .append("content-type: application/json\r\n")
            .append("retry-after: 1\r\n")
            .append("connection: close\r\n")
            .append("content-length: ")
            .append(body.length)
            .append("\r\n");
    state
        .commonHeaders
        .iteratorCharSequence()
        .forEachRemaining(
            header ->
                head.append(header.getKey()).append(": ").append(header.getValue()).append("\r\n"));
    head.append("\r\n");
    byte[] headBytes = head.toString().getBytes(StandardCharsets.US_ASCII);
    byte[] whole = Arrays.copyOf(headBytes, headBytes.length + body.length);
    System.arraycopy(body, 0, whole, headBytes.length, body.length);
    return whole;
  }
}
