package io.picomq.cli.extension;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import javax.net.SocketFactory;

/**
 * A pgjdbc {@code socketFactory} that connects to a Unix-domain socket, whatever host and port the
 * driver asks for: {@code
 * ?socketFactory=io.picomq.cli.extension.UnixSocketFactory&socketFactoryArg=/run/postgresql/.s.PGSQL.5432}.
 * The node inside Postgres reaches its own database this way, over the local socket, where Debian's
 * default {@code peer} authentication lets the {@code postgres} user in without a password (over
 * TCP it would need one).
 */
public final class UnixSocketFactory extends SocketFactory {
  private final Path socketPath;

  /** pgjdbc calls this with {@code socketFactoryArg}: the socket file's path. */
  public UnixSocketFactory(String socketPath) {
    if (socketPath == null || socketPath.isBlank()) {
      throw new IllegalArgumentException(
          "UnixSocketFactory needs socketFactoryArg: the path of the server's socket file");
    }
    this.socketPath = Path.of(socketPath);
  }

  /** An unconnected socket; pgjdbc connects it (the address it passes is ignored). */
  @Override
  public Socket createSocket() {
    return new UnixSocket(socketPath);
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    Socket socket = createSocket();
    socket.connect(null);
    return socket;
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    return createSocket(host, port);
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return createSocket((String) null, port);
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    return createSocket((String) null, port);
  }
}
