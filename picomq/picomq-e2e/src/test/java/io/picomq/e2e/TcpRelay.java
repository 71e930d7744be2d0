package io.picomq.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Relays TCP connections from an address to a target, byte for byte: lets a process in another
 * network namespace reach a server that listens on the host's loopback address only (Postgres,
 * S3Proxy). It knows nothing of the protocols; a partition is made below it (the link the process
 * reaches it over goes down), not by it.
 *
 * <p>Threading: a platform thread accepts; each connection is pumped both ways by two virtual
 * threads. {@link #close} may come from any thread.
 */
public final class TcpRelay implements AutoCloseable {

  private final ServerSocket server;
  private final InetSocketAddress target;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();

  private TcpRelay(ServerSocket server, InetSocketAddress target) {
    this.server = server;
    this.target = target;
  }

  /** Listens on {@code host} (a free port) and relays each connection to {@code target}. */
  public static TcpRelay start(String host, InetSocketAddress target) {
    try {
      ServerSocket server = new ServerSocket();
      server.bind(new InetSocketAddress(host, 0), 200);
      TcpRelay relay = new TcpRelay(server, target);
      Thread.ofPlatform().daemon().name("tcp-relay-" + target.getPort()).start(relay::accept);
      return relay;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where it listens. */
  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket inbound;
      try {
        inbound = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      Socket outbound = new Socket();
      try {
        outbound.connect(target, 5_000);
      } catch (IOException e) {
        closeQuietly(inbound);
        closeQuietly(outbound);
        continue;
      }
      open.add(inbound);
      open.add(outbound);
      Thread.startVirtualThread(() -> pump(inbound, outbound));
      Thread.startVirtualThread(() -> pump(outbound, inbound));
    }
  }

  /** Copies {@code from} to {@code to} until either ends; then closes both. */
  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // one side ended
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private void closeQuietly(Socket socket) {
    open.remove(socket);
    try {
      socket.close();
    } catch (IOException e) {
      // closing is all we wanted
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // closing is all we wanted
    }
    open.forEach(this::closeQuietly);
  }
}
