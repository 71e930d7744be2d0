package io.picomq.cli.extension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The socket pgjdbc gets for the local socket, against a real Unix-domain server: bytes both ways
 * whatever address the driver passes, a read timeout that ends in {@link SocketTimeoutException}
 * (pgjdbc's notification polling relies on it), end of stream, and a clear refusal.
 */
class UnixSocketFactoryTest {
  @TempDir Path dir;

  @Test
  void carriesBytesBothWaysAndTimesOutAReadAsTcpWould() throws Exception {
    Path path = dir.resolve(".s.PGSQL.5432");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(path));
      Socket socket = new UnixSocketFactory(path.toString()).createSocket();
      // pgjdbc connects to host:port; the factory's path is what counts.
      socket.connect(InetSocketAddress.createUnresolved("localhost", 5432), 1000);
      try (SocketChannel peer = server.accept()) {
        assertThat(socket.isConnected()).isTrue();
        OutputStream out = socket.getOutputStream();
        InputStream in = socket.getInputStream();
        out.write("ping".getBytes(StandardCharsets.UTF_8));
        ByteBuffer received = ByteBuffer.allocate(4);
        while (received.hasRemaining()) {
          peer.read(received);
        }
        assertThat(new String(received.array(), StandardCharsets.UTF_8)).isEqualTo("ping");

        socket.setSoTimeout(50);
        assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);

        peer.write(ByteBuffer.wrap("pong".getBytes(StandardCharsets.UTF_8)));
        byte[] reply = in.readNBytes(4);
        assertThat(new String(reply, StandardCharsets.UTF_8)).isEqualTo("pong");

        peer.close();
        socket.setSoTimeout(0);
        assertThat(in.read()).isEqualTo(-1);
      } finally {
        socket.close();
      }
      assertThat(socket.isClosed()).isTrue();
    }
  }

  @Test
  void noServerIsAClearConnectFailure() {
    Path missing = dir.resolve("missing.sock");
    assertThatThrownBy(() -> new UnixSocketFactory(missing.toString()).createSocket("h", 1))
        .isInstanceOf(SocketException.class)
        .hasMessageContaining(missing.toString());
  }
}
