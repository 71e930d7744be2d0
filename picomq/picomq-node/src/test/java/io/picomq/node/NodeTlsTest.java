package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.frontend.tls.TestCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node serving TLS: both listeners over https, and every URL it hands out (its advertised
 * address, which other nodes redirect to, and a created stream's {@code Location}) names https.
 */
class NodeTlsTest {

  @TempDir Path dir;
  private final TestCertificates.Authority ca = TestCertificates.authority("node-ca");
  private Node node;

  @AfterEach
  void stop() {
    if (node != null) {
      node.stop(Duration.ZERO);
    }
  }

  @Test
  void theAdvertisedAddressAndLocationsAreHttps() throws Exception {
    TestCertificates.Issued issued = ca.issue("node-1");
    TlsSettings tls =
        TlsSettings.of(
            issued.writeCertificate(dir.resolve("cert.pem")),
            issued.writeKey(dir.resolve("key.pem")));
    node =
        Node.start(
            AdminApiTest.config(dir, 1, ListenerProtocol.DS).newBuilder().tls(tls).build(),
            Clock.systemUTC());
    URI data = URI.create("https://127.0.0.1:" + node.address().getPort());
    URI admin = URI.create("https://127.0.0.1:" + node.adminAddress().orElseThrow().getPort());

    try (HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_2)
            .sslContext(ca.clientContext())
            .build()) {
      HttpResponse<String> created =
          http.send(
              HttpRequest.newBuilder(data.resolve("/v1/stream/tls/s"))
                  .PUT(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).isEqualTo(201);
      assertThat(created.version()).isEqualTo(HttpClient.Version.HTTP_2);
      assertThat(created.headers().firstValue("location")).contains(data + "/v1/stream/tls/s");

      HttpResponse<String> nodes =
          http.send(
              HttpRequest.newBuilder(admin.resolve("/admin/nodes")).build(),
              HttpResponse.BodyHandlers.ofString());
      JsonNode self =
          AdminHttp.byNodeId(new ObjectMapper().readTree(nodes.body()).path("nodes"), 1);
      assertThat(self.path("address").asText()).isEqualTo(data.toString());
    }
    assertThat(node.reloadTls()).isTrue();
  }
}
