package io.picomq.frontend.http;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Access control decides on the request head: a refused request is answered before its body is read
 * (so a huge or never-sent body costs nothing, and an {@code Expect: 100-continue} gets no {@code
 * 100}), never reaches the handler, and is answered the same over HTTP/2.
 */
class AccessGateTest {
  private static final String GOOD = "Bearer good";

  private final AtomicInteger handled = new AtomicInteger();
  private HttpListener listener;

  @BeforeEach
  void start() throws InterruptedException {
    AccessControl access =
        (head, path, mayHaveBody) ->
            GOOD.equals(head.headers().get("Authorization"))
                ? Optional.empty()
                : Optional.of(AccessRefusal.unauthorized("no good token for " + path));
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
                Optional.empty(),
                access),
            exchange -> {
              handled.incrementAndGet();
              exchange.respond(HttpResponseStatus.OK, new DefaultHttpHeaders(), exchange.body());
            });
  }

  @AfterEach
  void stop() {
    listener.close();
  }

  @Test
  void aRefusedRequestIsAnsweredWithoutWaitingForItsBody() throws Exception {
    // 100 MiB announced, far past the body limit, and not one byte of it sent.
    String answer =
        exchange("POST /s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 104857600\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 401 ");
    assertThat(answer).containsIgnoringCase("www-authenticate: Bearer realm=\"picomq\"");
    assertThat(answer)
        .contains("{\"error\":\"unauthorized\",\"message\":\"no good token for /s\"}");
    assertThat(handled).hasValue(0);
  }

  @Test
  void anUpgradeRequestWithABodyIsRefusedWithoutWaitingForItsBody() throws Exception {
    // Netty's h2c upgrade reads a whole upgrade request before passing it on: one with a body is
    // served as HTTP/1.1 instead (a server may ignore Upgrade), so the gate sees its head first.
    String answer =
        exchange(
            "POST /s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n"
                + "Content-Length: 1000000\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 401 ").doesNotContain("101 Switching");
    assertThat(handled).hasValue(0);
  }

  @Test
  void aBodilessUpgradeRequestStillUpgrades() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", listener.address().getPort())) {
      socket.setSoTimeout(5_000);
      socket
          .getOutputStream()
          .write(
              ("OPTIONS /s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                      + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n")
                  .getBytes(ISO_8859_1));
      byte[] head = socket.getInputStream().readNBytes("HTTP/1.1 101".length());

      assertThat(new String(head, ISO_8859_1)).isEqualTo("HTTP/1.1 101");
    }
  }

  @Test
  void anExpectContinueRequestGetsNoContinue() throws Exception {
    String answer =
        exchange(
            "PUT /s HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n"
                + "Content-Length: 10\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 401 ").doesNotContain("100 Continue");
    assertThat(handled).hasValue(0);
  }

  @Test
  void aRefusalWithoutABodyKeepsTheConnectionForTheNextRequest() throws Exception {
    String answer =
        exchange(
            "GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                + "POST /b HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
                + GOOD
                + "\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");

    assertThat(answer.indexOf("HTTP/1.1 401 ")).isZero();
    assertThat(answer.indexOf("HTTP/1.1 200 ")).isPositive();
    assertThat(answer).endsWith("hello");
    assertThat(handled).hasValue(1);
  }

  @Test
  void http2IsCheckedTheSameWay() throws Exception {
    try (H2PriorKnowledgeClient client = new H2PriorKnowledgeClient(listener.address())) {
      H2PriorKnowledgeClient.Response refused =
          client.send(HttpMethod.POST, "/s", Map.of(), "a body");
      H2PriorKnowledgeClient.Response served =
          client.send(HttpMethod.POST, "/s", Map.of("authorization", GOOD), "a body");

      assertThat(refused.status()).isEqualTo(401);
      assertThat(refused.headers()).containsEntry("www-authenticate", "Bearer realm=\"picomq\"");
      assertThat(served.status()).isEqualTo(200);
      assertThat(served.body()).isEqualTo("a body");
    }
    assertThat(handled).hasValue(1);
  }

  /** Writes {@code request} and reads until the server closes the connection. */
  private String exchange(String request) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", listener.address().getPort())) {
      socket.setSoTimeout(5_000);
      socket.getOutputStream().write(request.getBytes(ISO_8859_1));
      socket.getOutputStream().flush();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[4096];
      try {
        for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
          answer.write(buffer, 0, read);
        }
      } catch (SocketTimeoutException e) {
        throw new AssertionError("the server did not answer and close: " + answer, e);
      } catch (IOException reset) {
        // A reset after the answer (closed with unread input) ends it as well.
      }
      return answer.toString(ISO_8859_1);
    }
  }
}
