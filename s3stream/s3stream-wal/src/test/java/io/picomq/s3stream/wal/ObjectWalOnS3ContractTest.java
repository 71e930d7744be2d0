package io.picomq.s3stream.wal;

import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.s3.S3ProxyServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The WAL contract for {@link ObjectWal} on a real S3 server (S3Proxy), opened from a URI. */
class ObjectWalOnS3ContractTest extends ObjectWalContract {

  private static S3ProxyServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3ProxyServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @Override
  protected ObjectStore openStore() {
    return server.openStore();
  }

  @Override
  protected int maxPutDelayMicros() {
    return 500;
  }

  @Override
  protected int crashRounds() {
    return 10;
  }

  /** A PUT to S3Proxy costs milliseconds: batch for longer, as on real S3 (scaled down). */
  @Override
  protected WalConfig config() {
    return CONFIG.newBuilder().batchInterval(Duration.ofMillis(20)).build();
  }
}
