package io.picomq.frontend.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.picomq.frontend.tls.KeyPassword;
import io.picomq.frontend.tls.ServerTls;
import io.picomq.frontend.tls.TestCertificates;
import io.picomq.frontend.tls.TlsFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listener serving TLS from PEM files: what a client sees over HTTP/1.1 and h2 (chosen by ALPN),
 * what a client that does not trust the CA sees, reloads, and each bad file refused in one line.
 */
class TlsListenerTest {

  @TempDir Path dir;

  private final TestCertificates.Authority ca = TestCertificates.authority("test-ca");
  private HttpListener listener;

  @AfterEach
  void stop() {
    if (listener != null) {
      listener.close();
    }
  }

  /** Answers which HTTP version and scheme the request came with. */
  private static void describe(Exchange exchange) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set("x-http2", exchange.isHttp2());
    headers.set("x-scheme", exchange.scheme());
    exchange.respond(HttpResponseStatus.OK, headers, exchange.body());
  }

  private TlsFiles files(TestCertificates.Issued issued) {
    return new TlsFiles(
        issued.writeCertificate(dir.resolve("cert.pem")),
        issued.writeKey(dir.resolve("key.pem")),
        KeyPassword.NONE);
  }

  private URI start(ServerTls tls) throws InterruptedException {
    listener =
        HttpListener.start(
            new HttpListener.Options(
                "127.0.0.1",
                0,
                HttpLimits.DEFAULT,
                Map.of(),
                1,
                128,
                ConnectionLimits.DEFAULT,
                AllowedHosts.forListener("127.0.0.1", List.of()),
                CorsPolicy.none("--cors-origins"),
                Optional.of(tls),
                AccessControl.OPEN),
            TlsListenerTest::describe);
    return URI.create("https://127.0.0.1:" + listener.address().getPort());
  }

  private HttpClient client(HttpClient.Version version) {
    return HttpClient.newBuilder().version(version).sslContext(ca.clientContext()).build();
  }

  private static HttpResponse<String> get(HttpClient client, URI uri)
      throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String peerSubject(HttpResponse<?> response) throws Exception {
    return ((X509Certificate) response.sslSession().orElseThrow().getPeerCertificates()[0])
        .getSubjectX500Principal()
        .getName();
  }

  @Test
  void http11ClientsGetHttp11OverTls() throws Exception {
    URI base = start(ServerTls.load(files(ca.issue("server-a"))));
    try (HttpClient http1 = client(HttpClient.Version.HTTP_1_1)) {
      HttpResponse<String> response = get(http1, base.resolve("/s"));
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
      assertThat(response.headers().firstValue("x-http2")).contains("false");
      assertThat(response.headers().firstValue("x-scheme")).contains("https");
      assertThat(peerSubject(response)).isEqualTo("CN=server-a");
    }
  }

  @Test
  void h2IsNegotiatedThroughAlpn() throws Exception {
    URI base = start(ServerTls.load(files(ca.issue("server-a"))));
    try (HttpClient http2 = client(HttpClient.Version.HTTP_2)) {
      HttpResponse<String> response = get(http2, base.resolve("/s"));
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
      assertThat(response.headers().firstValue("x-http2")).contains("true");
      assertThat(response.headers().firstValue("x-scheme")).contains("https");
      assertThat(response.sslSession().orElseThrow().getProtocol()).startsWith("TLSv1.");
    }
  }

  @Test
  void aClientThatDoesNotTrustTheCaRefusesTheServer() throws Exception {
    URI base = start(ServerTls.load(files(ca.issue("server-a"))));
    try (HttpClient untrusting = HttpClient.newHttpClient()) {
      assertThatThrownBy(() -> get(untrusting, base.resolve("/s")))
          .isInstanceOf(SSLHandshakeException.class);
    }
    // Plain HTTP at the TLS port: closed, no answer in cleartext.
    try (Socket plain = new Socket("127.0.0.1", base.getPort())) {
      plain
          .getOutputStream()
          .write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] answer = plain.getInputStream().readAllBytes();
      assertThat(new String(answer, StandardCharsets.ISO_8859_1)).doesNotContain("HTTP/1.1");
    }
    // The listener serves trusting clients as before.
    try (HttpClient trusting = client(HttpClient.Version.HTTP_1_1)) {
      assertThat(get(trusting, base.resolve("/s")).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void reloadServesTheNewCertificateToNewConnectionsOnly() throws Exception {
    TestCertificates.Issued a = ca.issue("server-a");
    TlsFiles files = files(a);
    ServerTls tls = ServerTls.load(files);
    URI base = start(tls);
    SSLContext trusting = ca.clientContext();
    try (SSLSocket before =
        (SSLSocket) trusting.getSocketFactory().createSocket("127.0.0.1", base.getPort())) {
      before.startHandshake();

      TestCertificates.Issued b = ca.issue("server-b");
      b.writeCertificate(files.certificateChain());
      b.writeKey(files.privateKey());
      assertThat(tls.reload()).isTrue();

      try (HttpClient http1 = client(HttpClient.Version.HTTP_1_1)) {
        assertThat(peerSubject(get(http1, base.resolve("/s")))).isEqualTo("CN=server-b");
      }
      // The connection opened before keeps its certificate and is served.
      OutputStream out = before.getOutputStream();
      out.write(
          "GET /s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = before.getInputStream();
      assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII))
          .startsWith("HTTP/1.1 200");
      assertThat(
              ((X509Certificate) before.getSession().getPeerCertificates()[0])
                  .getSubjectX500Principal()
                  .getName())
          .isEqualTo("CN=server-a");
    }
  }

  @Test
  void aBadFileOnReloadKeepsTheCertificateInUse() throws Exception {
    TlsFiles files = files(ca.issue("server-a"));
    ServerTls tls = ServerTls.load(files);
    URI base = start(tls);
    Files.writeString(files.certificateChain(), "not a certificate\n");
    assertThat(tls.reload()).isFalse();
    try (HttpClient http1 = client(HttpClient.Version.HTTP_1_1)) {
      assertThat(peerSubject(get(http1, base.resolve("/s")))).isEqualTo("CN=server-a");
    }
  }

  @Test
  void anEncryptedKeyIsReadWithItsPasswordFile() throws Exception {
    TestCertificates.Issued issued = ca.issue("server-a");
    Path cert = issued.writeCertificate(dir.resolve("cert.pem"));
    Path key = issued.writeEncryptedKey(dir.resolve("key.pem"), "s3cret pass");
    Path passwordFile = Files.writeString(dir.resolve("password"), "s3cret pass\n");
    URI base = start(ServerTls.load(new TlsFiles(cert, key, KeyPassword.inFile(passwordFile))));
    try (HttpClient http2 = client(HttpClient.Version.HTTP_2)) {
      assertThat(get(http2, base.resolve("/s")).statusCode()).isEqualTo(200);
    }

    assertOneLineError(
        new TlsFiles(cert, key, KeyPassword.of("wrong")), "TLS key " + key, "wrong password");
    assertOneLineError(
        new TlsFiles(cert, key, KeyPassword.NONE), "TLS key " + key, "PICO_TLS_KEY_PASSWORD");
  }

  @Test
  void badFilesAreRefusedInOneLineNamingTheFile() throws Exception {
    TestCertificates.Issued a = ca.issue("server-a");
    Path cert = a.writeCertificate(dir.resolve("cert.pem"));
    Path key = a.writeKey(dir.resolve("key.pem"));
    Path otherKey = ca.issue("server-b").writeKey(dir.resolve("other-key.pem"));
    Path garbage = Files.writeString(dir.resolve("garbage.pem"), "-----BEGIN CERTIFICATE-----\n");
    Path badBase64 =
        Files.writeString(
            dir.resolve("bad.pem"),
            "-----BEGIN CERTIFICATE-----\n@@@\n-----END CERTIFICATE-----\n");
    Path missing = dir.resolve("missing.pem");

    assertOneLineError(
        new TlsFiles(missing, key, KeyPassword.NONE), "TLS certificate " + missing, "cannot read");
    assertOneLineError(
        new TlsFiles(cert, missing, KeyPassword.NONE), "TLS key " + missing, "cannot read");
    assertOneLineError(
        new TlsFiles(cert, otherKey, KeyPassword.NONE),
        "TLS key " + otherKey,
        "does not belong to the certificate");
    assertOneLineError(
        new TlsFiles(garbage, key, KeyPassword.NONE),
        "TLS certificate " + garbage,
        "no PEM certificate");
    assertOneLineError(
        new TlsFiles(badBase64, key, KeyPassword.NONE), "TLS certificate " + badBase64, "base64");
    assertOneLineError(
        new TlsFiles(cert, cert, KeyPassword.NONE), "TLS key " + cert, "no PEM private key");
  }

  private static void assertOneLineError(TlsFiles files, String names, String says) {
    assertThatThrownBy(() -> ServerTls.load(files))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(names)
        .hasMessageContaining(says)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }
}
