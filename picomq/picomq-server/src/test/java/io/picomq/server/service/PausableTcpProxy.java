package io.picomq.server.service;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A TCP relay on a loopback port in front of a real server, for faults at the network layer: while
 * {@link #pause paused} no byte moves in either direction (as if the server were stopped with
 * SIGSTOP: connections stay open, requests hang), and {@link #resume} lets everything buffered
 * through. Each connection is two virtual threads copying bytes.
 */
final class PausableTcpProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition resumed = lock.newCondition();

  /** Guarded by lock. */
  private boolean paused;

  private PausableTcpProxy(ServerSocket listener, InetSocketAddress target) {
    this.listener = listener;
    this.target = target;
  }

  static PausableTcpProxy start(int targetPort) throws IOException {
    ServerSocket listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    PausableTcpProxy proxy =
        new PausableTcpProxy(
            listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
    Thread.ofVirtual().name("proxy-accept").start(proxy::accept);
    return proxy;
  }

  int port() {
    return listener.getLocalPort();
  }

  void pause() {
    lock.lock();
    try {
      paused = true;
    } finally {
      lock.unlock();
    }
  }

  void resume() {
    lock.lock();
    try {
      paused = false;
      resumed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() throws IOException {
    resume();
    listener.close();
    for (Socket socket : sockets) {
      socket.close();
    }
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(target.getAddress(), target.getPort());
        sockets.add(client);
        sockets.add(server);
        Thread.ofVirtual().start(() -> relay(client, server));
        Thread.ofVirtual().start(() -> relay(server, client));
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void relay(Socket from, Socket to) {
    byte[] buffer = new byte[64 << 10];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int read;
      while ((read = in.read(buffer)) >= 0) {
        awaitRunning();
        out.write(buffer, 0, read);
        out.flush();
      }
    } catch (IOException closed) {
      // either side went away: the other follows below
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private void awaitRunning() {
    lock.lock();
    try {
      while (paused) {
        resumed.awaitUninterruptibly();
      }
    } finally {
      lock.unlock();
    }
  }

  private void closeQuietly(Socket socket) {
    sockets.remove(socket);
    try {
      socket.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
