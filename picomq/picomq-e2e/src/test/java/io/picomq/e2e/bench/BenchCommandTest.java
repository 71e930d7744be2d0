package io.picomq.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.e2e.FaultProxy;
import io.picomq.e2e.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pico bench} through {@code bin/pico} against a real server: a short run must report
 * figures that hang together, whatever the machine's speed.
 */
class BenchCommandTest {
  @TempDir Path dir;

  /** What a finished {@code pico bench} printed. */
  private record Run(int exitCode, String stdout, String stderr) {}

  @Test
  void aShortPicoRunReportsCoherentFiguresAndDeletesItsStreams() throws Exception {
    try (ServerProcess server = ServerProcess.start(dir.resolve("server"))) {
      Run run = bench(server.endpoint(), "--protocol", "pico", "--streams", "2");
      JsonNode report = coherent(run, "pico");
      assertThat(report.path("settings").path("streams").asInt()).isEqualTo(2);
      // the server lists every stream it has: none of the run's is left
      assertThat(get(server.endpoint().resolve("/")))
          .as("the run's streams are deleted")
          .contains("\"streams\"")
          .doesNotContain("pico-bench-");
    }
  }

  @Test
  void aShortDurableStreamsRunReadsBackEveryRecord() throws Exception {
    try (ServerProcess server =
        ServerProcess.startWith(dir.resolve("server"), List.of("--protocol", "ds"), List.of())) {
      Run run = bench(server.endpoint(), "--protocol", "ds", "--records-per-append", "3");
      coherent(run, "ds");
    }
  }

  /**
   * Every 10th append is refused with 503 by a proxy in front of the server: the run waits its
   * Retry-After, resends, counts the retries and reports no error.
   */
  @Test
  void refusedAppendsAreRetriedAndCounted() throws Exception {
    AtomicInteger posts = new AtomicInteger();
    try (ServerProcess server = ServerProcess.start(dir.resolve("server"));
        FaultProxy proxy =
            new FaultProxy(
                server.endpoint(),
                request ->
                    request.method().equals("POST") && posts.getAndIncrement() % 10 == 9
                        ? FaultProxy.Fault.REFUSE
                        : FaultProxy.Fault.PASS,
                "0")) {
      Run run = bench(proxy.endpoint(), "--protocol", "pico");
      JsonNode report = coherent(run, "pico");
      assertThat(proxy.faults()).isPositive();
      assertThat(report.path("writes").path("retries").asLong())
          .isGreaterThanOrEqualTo(proxy.faults());
    }
  }

  private static JsonNode coherent(Run run, String protocol) throws IOException {
    assertThat(run.exitCode()).as("exit code; stderr:%n%s", run.stderr()).isZero();
    JsonNode report = new ObjectMapper().readTree(run.stdout());
    assertThat(report.path("settings").path("protocol").asText()).isEqualTo(protocol);
    assertThat(report.path("problems")).isEmpty();

    JsonNode writes = report.path("writes");
    long written = writes.path("records").asLong();
    assertThat(written).isPositive();
    assertThat(writes.path("errors").asLong()).isZero();
    assertThat(writes.path("measuredRecords").asLong()).isPositive().isLessThanOrEqualTo(written);
    assertThat(writes.path("recordsPerSecond").asDouble()).isPositive();
    assertThat(writes.path("mbPerSecond").asDouble()).isPositive();
    ordered(writes.path("ackLatencyMs"));

    JsonNode reads = report.path("reads");
    assertThat(reads.path("records").asLong()).as("records the tail read").isEqualTo(written);
    ordered(reads.path("endToEndLatencyMs"));
    assertThat(report.path("elapsedSeconds").asDouble()).isGreaterThanOrEqualTo(2.5);

    // progress lines went to stderr while it ran
    assertThat(run.stderr()).contains("rec/s").contains("ack p50").contains("e2e p50");
    return report;
  }

  private static void ordered(JsonNode latency) {
    assertThat(latency.path("count").asLong()).isPositive();
    double p50 = latency.path("p50").asDouble();
    double p90 = latency.path("p90").asDouble();
    double p99 = latency.path("p99").asDouble();
    double p999 = latency.path("p999").asDouble();
    double max = latency.path("max").asDouble();
    assertThat(p50).isPositive().isLessThanOrEqualTo(p90);
    assertThat(p90).isLessThanOrEqualTo(p99);
    assertThat(p99).isLessThanOrEqualTo(p999);
    assertThat(p999).isLessThanOrEqualTo(max);
  }

  private static Run bench(URI endpoint, String... more) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "bench",
                "--endpoint",
                endpoint.toString(),
                "--duration",
                "3s",
                "--warmup",
                "1s",
                "--writers",
                "4",
                "--record-size",
                "512",
                "--interval",
                "1s",
                "--json"));
    args.addAll(List.of(more));
    Process process = ServerProcess.launcher(args).start();
    CompletableFuture<String> stdout = slurp(process.getInputStream());
    CompletableFuture<String> stderr = slurp(process.getErrorStream());
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("pico bench did not finish:\n" + stderr.getNow(""));
    }
    return new Run(process.exitValue(), stdout.get(), stderr.get());
  }

  private static CompletableFuture<String> slurp(InputStream in) {
    CompletableFuture<String> text = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try (in) {
                text.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
              } catch (IOException e) {
                text.completeExceptionally(new UncheckedIOException(e));
              }
            });
    return text;
  }

  private static String get(URI uri) throws Exception {
    try (HttpClient client = HttpClient.newHttpClient()) {
      HttpResponse<String> response =
          client.send(
              HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      return response.body();
    }
  }
}
