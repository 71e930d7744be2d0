package io.picomq.s3stream.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.objectstore.FaultInjectingObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import io.picomq.s3stream.objectstore.ObjectStoreException.Kind;
import io.picomq.s3stream.objectstore.RetryPolicy;
import io.picomq.s3stream.objectstore.RetryingObjectStore;
import io.picomq.s3stream.time.Scheduler;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** How the S3 backend fails against real servers and sockets, and that retries carry it through. */
class S3ObjectStoreTest {

  private static S3ProxyServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3ProxyServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @Test
  void wrongCredentialsAreAccessDeniedAndNotRetried() throws Exception {
    S3ObjectStore direct =
        S3ObjectStore.open(
            settings(server.endpoint(), server.bucket(), Duration.ofSeconds(5)),
            StaticCredentialsProvider.create(AwsBasicCredentials.create("intruder", "guess")));
    FaultInjectingObjectStore counting = new FaultInjectingObjectStore(direct);
    try (ObjectStore store = retrying(counting)) {
      ObjectStoreException failure = failure(store.get("k", 0, -1));
      assertThat(failure.kind()).isEqualTo(Kind.ACCESS_DENIED);
      assertThat(failure).hasMessageContaining("403");
      assertThat(counting.calls()).isEqualTo(1);
    }
  }

  @Test
  void aMissingBucketIsPermanentNotAMissingObject() throws Exception {
    try (S3ObjectStore store =
        S3ObjectStore.open(
            settings(server.endpoint(), "no-such-bucket", Duration.ofSeconds(5)),
            server.credentials())) {
      assertThat(failure(store.get("k", 0, -1)).kind()).isEqualTo(Kind.PERMANENT);
      assertThat(failure(store.list("")).kind()).isEqualTo(Kind.PERMANENT);
      ByteBuf data = Unpooled.wrappedBuffer(new byte[1]);
      assertThat(failure(store.put("k", data)).kind()).isEqualTo(Kind.PERMANENT);
    }
  }

  @Test
  void aRefusedConnectionIsTransient() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    try (S3ObjectStore store =
        S3ObjectStore.open(
            settings(URI.create("http://127.0.0.1:" + port), "bucket", Duration.ofSeconds(1)),
            server.credentials())) {
      ObjectStoreException failure = failure(store.get("k", 0, -1));
      assertThat(failure.kind()).isEqualTo(Kind.TRANSIENT);
      assertThat(failure.isRetryable()).isTrue();
    }
  }

  @Test
  void aServerThatNeverAnswersTimesOutAsTransient() throws Exception {
    try (SilentServer silent = new SilentServer();
        S3ObjectStore store =
            S3ObjectStore.open(
                settings(silent.endpoint(), "bucket", Duration.ofMillis(300)),
                server.credentials())) {
      ObjectStoreException failure = failure(store.list(""));
      assertThat(failure.kind()).isEqualTo(Kind.TRANSIENT);
      assertThat(failure).hasMessageContaining("timed out");
    }
  }

  @Test
  void injectedSlowDownsAroundARealServerAreRetriedToSuccess() throws Exception {
    FaultInjectingObjectStore faults =
        new FaultInjectingObjectStore(server.openStore(RetryPolicy.none()));
    String key = "retry/" + new Random().nextLong();
    try (ObjectStore store = retrying(faults)) {
      faults.failNext(2, FaultInjectingObjectStore::slowDown);
      ByteBuf data = Unpooled.wrappedBuffer(new byte[] {7, 7, 7});
      store.put(key, data).get(30, TimeUnit.SECONDS);
      data.release();
      assertThat(faults.calls()).isEqualTo(3);

      faults.failNext(1, FaultInjectingObjectStore::timeout);
      ByteBuf got = store.get(key, 1, -1).get(30, TimeUnit.SECONDS);
      assertThat(ByteBufUtil.getBytes(got)).containsExactly(7, 7);
      got.release();
      store.delete(List.of(key)).get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aClosedStoreFailsAsClosed() throws Exception {
    S3ObjectStore store =
        S3ObjectStore.open(
            settings(server.endpoint(), server.bucket(), Duration.ofSeconds(5)),
            server.credentials());
    store.close();
    assertThat(failure(store.list("")).kind()).isEqualTo(Kind.CLOSED);
  }

  private static S3Settings settings(URI endpoint, String bucket, Duration timeout) {
    return new S3Settings(bucket, "us-east-1", Optional.of(endpoint), true, 4, timeout, timeout);
  }

  private static ObjectStore retrying(ObjectStore store) {
    RetryPolicy quick =
        new RetryPolicy(
            5,
            Duration.ofMillis(5),
            Duration.ofMillis(20),
            Duration.ofSeconds(20),
            Duration.ofSeconds(20));
    return new RetryingObjectStore(store, quick, Scheduler.system(), new Random());
  }

  private static ObjectStoreException failure(CompletableFuture<?> future) throws Exception {
    try {
      Object value = future.get(30, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + value);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(ObjectStoreException.class);
      return (ObjectStoreException) e.getCause();
    }
  }

  /** Accepts TCP connections on loopback and never says a word. */
  private static final class SilentServer implements AutoCloseable {
    private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> accepted = new ArrayList<>();
    private final Thread acceptor = new Thread(this::acceptForever, "silent-server");

    SilentServer() throws IOException {
      acceptor.setDaemon(true);
      acceptor.start();
    }

    URI endpoint() {
      return URI.create("http://127.0.0.1:" + socket.getLocalPort());
    }

    private void acceptForever() {
      try {
        while (true) {
          Socket s = socket.accept();
          synchronized (accepted) {
            accepted.add(s);
          }
        }
      } catch (IOException e) {
        // closed
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
      synchronized (accepted) {
        for (Socket s : accepted) {
          s.close();
        }
      }
    }
  }
}
