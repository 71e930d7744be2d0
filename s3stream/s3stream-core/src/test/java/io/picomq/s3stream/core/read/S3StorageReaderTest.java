package io.picomq.s3stream.core.read;

import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.s3.S3ProxyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The read path contract on a real S3 server (S3Proxy) on a real socket. */
class S3StorageReaderTest extends StorageReaderContract {
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
  protected ObjectStore store() {
    return store;
  }
}
