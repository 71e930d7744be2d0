package io.picomq.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Raw HTTP for the fault tests: every request has a client-side bound a little past the server's
 * request timeout, so a hang fails the test instead of stalling it, and every failure answer is
 * checked to be typed (503 or 507, with {@code Retry-After} and a JSON body; never a 500).
 */
final class Answers {
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();
  private final Duration bound;

  /**
   * @param bound the longest any answer may take: the server's request timeout plus slack
   */
  Answers(Duration bound) {
    this.bound = bound;
  }

  HttpResponse<byte[]> send(String method, URI uri, Map<String, String> headers, byte[] body)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(bound)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(request::header);
    long started = System.nanoTime();
    HttpResponse<byte[]> answer =
        http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(took).as("%s %s answered in %s", method, uri, took).isLessThan(bound);
    assertTyped(method + " " + uri, answer);
    return answer;
  }

  /** A failure answer is 503/507 with Retry-After and a JSON error body; never 500. */
  static void assertTyped(String what, HttpResponse<byte[]> answer) {
    int status = answer.statusCode();
    String body = new String(answer.body(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(status).as("%s answered %s: %s", what, status, body).isNotEqualTo(500);
    if (status == 503 || status == 507) {
      assertThat(answer.headers().firstValue("retry-after"))
          .as("%s: Retry-After on %s", what, status)
          .hasValueSatisfying(seconds -> assertThat(Integer.parseInt(seconds)).isPositive());
      assertThat(body).as(what).contains("\"error\"").contains("\"message\"");
    }
  }

  /** The status of {@code GET /ready} on the admin listener. */
  int ready(URI admin) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(admin.resolve("/ready")).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  static Optional<String> header(HttpResponse<?> answer, String name) {
    return answer.headers().firstValue(name);
  }

  /** Waits for {@code condition} until {@code within} passes; fails the test then. */
  static void awaitTrue(String what, Duration within, Check condition) {
    await(what)
        .atMost(within)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(200))
        .until(condition::holds);
  }

  /** A condition that may do I/O. */
  interface Check {
    boolean holds() throws Exception;
  }
}
