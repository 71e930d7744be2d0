package io.picomq.cli.extension;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Socket} over a Unix-domain {@link SocketChannel}, with what pgjdbc needs of a socket:
 * connect, streams, close, and a read timeout ({@code SO_TIMEOUT}). The timeout matters: pgjdbc
 * waits for notifications (the metadata log LISTENs) by reading with a short one and expecting
 * {@link SocketTimeoutException}. So the channel is non-blocking and each read waits on a selector
 * for at most the timeout. TCP options (no delay, keep-alive, buffer sizes) have no meaning here
 * and are accepted and ignored.
 *
 * <p>Threading: one thread reads and one writes at a time (pgjdbc's use); {@link #close} may come
 * from any thread and wakes a blocked read or write.
 *
 * <p>Why not junixsocket, which offers such a socket factory: it loads a JNI library of its own,
 * which here would run inside a Postgres backend process; the JDK's Unix-domain channels need no
 * native code beyond the JVM's.
 */
final class UnixSocket extends Socket {
  private final Path path;

  // Set once by connect; read by any thread afterwards.
  private volatile SocketChannel channel;
  private volatile Selector readable;
  private volatile Selector writable;

  private volatile int soTimeoutMillis;
  private volatile boolean closed;

  UnixSocket(Path path) {
    this.path = path;
  }

  @Override
  public void connect(SocketAddress ignored) throws IOException {
    connect(ignored, 0);
  }

  @Override
  public void connect(SocketAddress ignored, int timeoutMillis) throws IOException {
    if (closed) {
      throw new SocketException("Socket is closed");
    }
    SocketChannel opened = SocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      opened.connect(UnixDomainSocketAddress.of(path));
      opened.configureBlocking(false);
      readable = Selector.open();
      writable = Selector.open();
      opened.register(readable, SelectionKey.OP_READ);
      opened.register(writable, SelectionKey.OP_WRITE);
    } catch (IOException e) {
      opened.close();
      throw new SocketException("cannot connect to " + path + ": " + e.getMessage());
    }
    channel = opened;
  }

  @Override
  public void bind(SocketAddress local) {
    // A Unix-domain client needs no local address.
  }

  @Override
  public boolean isConnected() {
    return channel != null;
  }

  @Override
  public boolean isBound() {
    return channel != null;
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  @Override
  public InputStream getInputStream() throws IOException {
    SocketChannel open = openChannel();
    return new InputStream() {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] bytes, int offset, int length) throws IOException {
        return readSome(open, ByteBuffer.wrap(bytes, offset, length));
      }

      @Override
      public void close() throws IOException {
        UnixSocket.this.close();
      }
    };
  }

  @Override
  public OutputStream getOutputStream() throws IOException {
    SocketChannel open = openChannel();
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] bytes, int offset, int length) throws IOException {
        writeAll(open, ByteBuffer.wrap(bytes, offset, length));
      }

      @Override
      public void close() throws IOException {
        UnixSocket.this.close();
      }
    };
  }

  private SocketChannel openChannel() throws SocketException {
    SocketChannel open = channel;
    if (open == null) {
      throw new SocketException("Socket is not connected");
    }
    if (closed) {
      throw new SocketException("Socket is closed");
    }
    return open;
  }

  /** Reads at least one byte, or -1 at the end, waiting at most SO_TIMEOUT (0: forever). */
  private int readSome(SocketChannel open, ByteBuffer into) throws IOException {
    if (!into.hasRemaining()) {
      return 0;
    }
    int timeoutMillis = soTimeoutMillis;
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (true) {
      int n = open.read(into);
      if (n != 0) {
        return n;
      }
      if (closed) {
        throw new SocketException("Socket closed");
      }
      long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (timeoutMillis > 0 && leftMillis <= 0) {
        throw new SocketTimeoutException("Read timed out");
      }
      try {
        readable.select(timeoutMillis == 0 ? 0 : leftMillis);
        readable.selectedKeys().clear();
      } catch (ClosedSelectorException e) {
        throw new SocketException("Socket closed");
      }
    }
  }

  private void writeAll(SocketChannel open, ByteBuffer from) throws IOException {
    while (from.hasRemaining()) {
      if (open.write(from) == 0) {
        if (closed) {
          throw new SocketException("Socket closed");
        }
        try {
          writable.select();
          writable.selectedKeys().clear();
        } catch (ClosedSelectorException e) {
          throw new SocketException("Socket closed");
        }
      }
    }
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    SocketChannel open = channel;
    if (open != null) {
      open.close();
      readable.wakeup();
      writable.wakeup();
      readable.close();
      writable.close();
    }
  }

  @Override
  public void shutdownInput() throws IOException {
    openChannel().shutdownInput();
  }

  @Override
  public void shutdownOutput() throws IOException {
    openChannel().shutdownOutput();
  }

  @Override
  public void setSoTimeout(int timeoutMillis) throws SocketException {
    if (timeoutMillis < 0) {
      throw new IllegalArgumentException("SO_TIMEOUT must not be negative: " + timeoutMillis);
    }
    soTimeoutMillis = timeoutMillis;
  }

  @Override
  public int getSoTimeout() {
    return soTimeoutMillis;
  }

  @Override
  public void setTcpNoDelay(boolean on) {}

  @Override
  public boolean getTcpNoDelay() {
    return true;
  }

  @Override
  public void setKeepAlive(boolean on) {}

  @Override
  public boolean getKeepAlive() {
    return false;
  }

  @Override
  public void setSendBufferSize(int size) {}

  @Override
  public int getSendBufferSize() {
    return 65536;
  }

  @Override
  public void setReceiveBufferSize(int size) {}

  @Override
  public int getReceiveBufferSize() {
    return 65536;
  }

  @Override
  public String toString() {
    return "UnixSocket[" + path + (closed ? ", closed" : "") + "]";
  }
}
