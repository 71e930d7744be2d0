package io.picomq.s3stream.core;

import io.picomq.s3stream.core.testing.EngineStorage;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.s3.S3ProxyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Takeovers of the object WAL in S3 (S3Proxy on loopback). */
class S3ProxyTakeoverTest extends TakeoverContract {

  private static S3ProxyServer server;
  private static ObjectStore store;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3ProxyServer.start();
    store = server.openStore();
  }

  @AfterAll
  static void stopServer() throws Exception {
    store.close();
    server.close();
  }

  @Override
  protected EngineStorage openStorage() {
    return EngineStorage.s3(store);
  }
}
