package io.picomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pico serve} as a separate process, killed with SIGKILL while appends are in flight and
 * started again on the same data directory: every append acknowledged over HTTP is readable.
 */
class KillRestartTest {
  private static final Pattern SERVING = Pattern.compile("serving pico on http://([^,\\s]+)");

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void noAcknowledgedAppendIsLostToAKill() throws Exception {
    Process first = startServer();
    String base = awaitServing(first);
    List<String> acknowledged = new ArrayList<>();
    try {
      assertThat(send("PUT", base + "/crash", "").statusCode()).isEqualTo(201);
      List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        inFlight.add(sendAsync(base + "/crash", "r" + i + "\n"));
      }
      // Kill once some appends were acknowledged, while later ones are still in flight.
      inFlight.get(50).get(10, TimeUnit.SECONDS);
      first.destroyForcibly(); // SIGKILL
      for (int i = 0; i < inFlight.size(); i++) {
        try {
          HttpResponse<String> response = inFlight.get(i).get(10, TimeUnit.SECONDS);
          if (response.statusCode() == 200) {
            acknowledged.add("r" + i);
          }
        } catch (Exception refusedOrCut) {
          // not acknowledged: may or may not have been written
        }
      }
    } finally {
      first.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    assertThat(acknowledged).isNotEmpty();

    Process second = startServer();
    try {
      String again = awaitServing(second);
      String read = send("GET", again + "/crash?seq=0&format=raw", null).body();
      List<String> records = List.of(read.split("\n"));
      assertThat(records).containsAll(acknowledged);
    } finally {
      second.destroy();
      second.waitFor(20, TimeUnit.SECONDS);
    }
  }

  private Process startServer() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            java,
            "-cp",
            System.getProperty("java.class.path"),
            Pico.class.getName(),
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--no-admin",
            "--meta-url",
            "sqlite:" + dir.resolve("meta.db"),
            "--storage=-2@file://" + dir.resolve("objects"))
        .redirectErrorStream(true)
        .start();
  }

  /** Reads the server's output until it says where it serves; returns {@code http://host:port}. */
  private static String awaitServing(Process server) throws Exception {
    BufferedReader output =
        new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> address = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                for (String line = output.readLine(); line != null; line = output.readLine()) {
                  Matcher matcher = SERVING.matcher(line);
                  if (matcher.find()) {
                    address.complete("http://" + matcher.group(1));
                  }
                }
                address.completeExceptionally(new IllegalStateException("server exited"));
              } catch (Exception e) {
                address.completeExceptionally(e);
              }
            });
    return address.get(60, TimeUnit.SECONDS);
  }

  private CompletableFuture<HttpResponse<String>> sendAsync(String url, String body) {
    return http.sendAsync(
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "text/plain")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> send(String method, String url, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
    request.header("Content-Type", "text/plain");
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
