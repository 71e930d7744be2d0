package io.picomq.e2e.cli;

import static io.picomq.e2e.cli.PicoCli.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.picomq.client.AdminClient;
import io.picomq.client.CreateOptions;
import io.picomq.client.PicoClient;
import io.picomq.client.PicoTransportException;
import io.picomq.client.ReadRequest;
import io.picomq.client.Record;
import io.picomq.e2e.ServerProcess;
import io.picomq.frontend.tls.TestCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pico serve --tls-cert --tls-key} as a user runs it: both listeners over https, the CLI and
 * the SDK trusting the test's CA through {@code --ca-cert}, a certificate replaced and reloaded
 * with SIGHUP, and bad files refused at start in one line.
 */
class TlsTest {

  @TempDir Path dir;

  private final TestCertificates.Authority ca = TestCertificates.authority("e2e-ca");

  private ServerProcess serve(Path cert, Path key, String... more) {
    List<String> args = new ArrayList<>(List.of("--tls-cert", cert.toString()));
    args.addAll(List.of("--tls-key", key.toString()));
    args.addAll(List.of(more));
    // A SIGHUP ignored by whatever started the build (nohup, some CI runners) stays ignored in
    // every child, and the JVM then takes no handler for it: the node gets it back at default.
    return ServerProcess.startWrapped(
        dir.resolve("server"),
        Map.of(),
        List.of("env", "--default-signal=HUP"),
        "127.0.0.1",
        List.of(),
        args);
  }

  @Test
  void bothListenersServeHttpsAndTheCliTrustsTheCaItIsGiven() throws Exception {
    TestCertificates.Issued issued = ca.issue("server-a");
    Path cert = issued.writeCertificate(dir.resolve("cert.pem"));
    // An encrypted key, its password in a file: what the process list must not show.
    Path key = issued.writeEncryptedKey(dir.resolve("key.pem"), "pass phrase");
    Path password = Files.writeString(dir.resolve("key-password"), "pass phrase\n");
    Path caFile = ca.writeCertificate(dir.resolve("ca.pem"));
    try (ServerProcess server = serve(cert, key, "--tls-key-password-file", password.toString())) {
      URI endpoint = server.endpoint();
      assertThat(endpoint.getScheme()).isEqualTo("https");
      assertThat(server.adminEndpoint().getScheme()).isEqualTo("https");
      PicoCli pico = new PicoCli(dir.resolve("config.json"));

      assertOk(pico.run(at(endpoint, "--ca-cert", caFile.toString(), "create", "/tls/s")));
      assertOk(
          pico.run(
              "hello\n".getBytes(StandardCharsets.UTF_8),
              at(endpoint, "--ca-cert", caFile.toString(), "append", "/tls/s")));
      PicoCli.Result read =
          pico.run(at(endpoint, "--ca-cert", caFile.toString(), "read", "/tls/s"));
      assertOk(read);
      assertThat(read.out()).isEqualTo("hello\n");
      // Over HTTP/2 (ALPN), the CA from the environment.
      PicoCli.Result h2 =
          pico.withEnv("PICO_CA_CERT", caFile.toString())
              .run(at(endpoint, "--http2", "head", "/tls/s"));
      assertOk(h2);
      PicoCli.Result admin =
          pico.run(
              "admin",
              "cluster",
              "--admin-endpoint",
              server.adminEndpoint().toString(),
              "--ca-cert",
              caFile.toString());
      assertOk(admin);
      // From a profile.
      assertOk(pico.run("config", "set", "ca-cert", caFile.toString()));
      assertOk(pico.run(at(endpoint, "head", "/tls/s")));

      // Without the CA the JDK's CAs do not know the server: refused, in one line.
      PicoCli.Result untrusting =
          new PicoCli(dir.resolve("other-config.json")).run(at(endpoint, "head", "/tls/s"));
      assertThat(untrusting.exitCode()).as(untrusting.toString()).isNotZero();
      assertThat(untrusting.errLines()).hasSize(1);
      assertThat(untrusting.errLines().get(0)).contains("--ca-cert");
    }
  }

  @Test
  void theSdkTrustsItsCaCertificateOverHttp11AndH2() throws Exception {
    TestCertificates.Issued issued = ca.issue("server-a");
    Path caFile = ca.writeCertificate(dir.resolve("ca.pem"));
    try (ServerProcess server =
        serve(
            issued.writeCertificate(dir.resolve("cert.pem")),
            issued.writeKey(dir.resolve("key.pem")))) {
      URI endpoint = server.endpoint(); // https://127.0.0.1:PORT
      URI adminEndpoint = server.adminEndpoint();
      for (boolean http2 : new boolean[] {false, true}) {
        // #region tls
        try (PicoClient client =
                PicoClient.builder()
                    .endpoint(endpoint)
                    .caCertificate(caFile) // PEM of the CA that signed the server's certificate
                    .http2(http2) // over https: h2 chosen by ALPN
                    .build();
            AdminClient admin = client.admin(adminEndpoint)) { // the same CA
          client.create("/sdk/" + http2, CreateOptions.defaults());
          client.append("/sdk/" + http2, List.of(Record.of("over tls")));
          // #endregion tls
          assertThat(client.read("/sdk/" + http2, ReadRequest.from(0)).records()).hasSize(1);
          assertThat(admin.cluster().path("ready").asBoolean()).isTrue();
        }
      }
      try (AdminClient admin = AdminClient.create(adminEndpoint, caFile)) {
        assertThat(admin.cluster().path("ready").asBoolean()).isTrue();
      }
      try (PicoClient untrusting = PicoClient.builder().endpoint(server.endpoint()).build()) {
        assertThatThrownBy(() -> untrusting.head("/sdk/false"))
            .isInstanceOf(PicoTransportException.class);
      }
    }
  }

  @Test
  void sighupServesTheReplacedCertificateToNewConnections() throws Exception {
    TestCertificates.Issued a = ca.issue("server-a");
    Path cert = a.writeCertificate(dir.resolve("cert.pem"));
    Path key = a.writeKey(dir.resolve("key.pem"));
    try (ServerProcess server = serve(cert, key)) {
      assertThat(servedSubject(server.endpoint())).isEqualTo("CN=server-a");
      assertThat(servedSubject(server.adminEndpoint())).isEqualTo("CN=server-a");

      TestCertificates.Issued b = ca.issue("server-b");
      b.writeCertificate(cert);
      b.writeKey(key);
      server.hangUp();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(servedSubject(server.endpoint())).isEqualTo("CN=server-b"));
      assertThat(servedSubject(server.adminEndpoint())).isEqualTo("CN=server-b");

      // A bad file on reload: one line in the log, the certificate in use stays.
      Files.writeString(cert, "garbage\n");
      server.hangUp();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> server.output().stream().anyMatch(line -> line.contains("TLS reload failed")));
      assertThat(servedSubject(server.endpoint())).isEqualTo("CN=server-b");
      assertThat(server.isAlive()).isTrue();
    }
  }

  @Test
  void badFilesStopTheStartWithOneLine() throws Exception {
    TestCertificates.Issued a = ca.issue("server-a");
    Path cert = a.writeCertificate(dir.resolve("cert.pem"));
    Path key = a.writeKey(dir.resolve("key.pem"));
    Path otherKey = ca.issue("server-b").writeKey(dir.resolve("other-key.pem"));
    Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not pem at all\n");
    Path missing = dir.resolve("missing.pem");
    PicoCli pico = new PicoCli(dir.resolve("config.json"));
    record Case(Path cert, Path key, String says) {}
    for (Case bad :
        List.of(
            new Case(missing, key, "TLS certificate " + missing + ": cannot read it"),
            new Case(cert, otherKey, "does not belong to the certificate"),
            new Case(garbage, key, "TLS certificate " + garbage + ": no PEM certificate"),
            new Case(cert, garbage, "TLS key " + garbage + ": no PEM private key"))) {
      PicoCli.Result result =
          pico.run(
              "serve",
              "--listen",
              "127.0.0.1:0",
              "--admin-listen",
              "127.0.0.1:0",
              "--meta-url",
              "sqlite:" + dir.resolve("bad/meta.db"),
              "--storage=-2@file://" + dir.resolve("bad/objects"),
              "--tls-cert",
              bad.cert().toString(),
              "--tls-key",
              bad.key().toString());
      assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
      assertThat(result.errLines()).as(result.toString()).hasSize(1);
      assertThat(result.errLines().get(0)).startsWith("pico: cannot start: ").contains(bad.says());
    }
  }

  /** The subject of the certificate a new connection to {@code endpoint} is shown. */
  private String servedSubject(URI endpoint) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().sslContext(ca.clientContext()).build()) {
      HttpResponse<Void> response =
          http.send(
              HttpRequest.newBuilder(endpoint.resolve("/ready")).build(),
              HttpResponse.BodyHandlers.discarding());
      return ((X509Certificate) response.sslSession().orElseThrow().getPeerCertificates()[0])
          .getSubjectX500Principal()
          .getName();
    }
  }

  private static void assertOk(PicoCli.Result result) {
    assertThat(result.exitCode()).as(result.toString()).isZero();
  }
}
