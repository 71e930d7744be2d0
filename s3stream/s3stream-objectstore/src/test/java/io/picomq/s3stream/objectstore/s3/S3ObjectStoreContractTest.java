package io.picomq.s3stream.objectstore.s3;

import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** The contract against a real S3 server, opened the way production opens it: from a URI. */
class S3ObjectStoreContractTest extends ObjectStoreContract {
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

  /**
   * S3 itself stores such keys, but S3Proxy's HTTP server normalizes {@code //} and dot segments in
   * the request path before checking the signature, so the request is refused as
   * SignatureDoesNotMatch. Kept as a visible gap instead of silently dropping the keys.
   */
  @Override
  @Test
  @Disabled("S3Proxy normalizes '//' and dot segments in request paths, breaking SigV4")
  protected void keysWithDotAndEmptySegmentsRoundTrip() {}
}
