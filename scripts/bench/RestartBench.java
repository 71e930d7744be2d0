// The load driver of scripts/bench-restart.sh: a single-file program (run with `java
// RestartBench.java ...`, no build) that creates streams with one record each, or first-reads
// each of them, from a fixed number of concurrent clients, and prints what it measured.
//
//   java RestartBench.java create ENDPOINT STREAMS CLIENTS
//   java RestartBench.java read   ENDPOINT STREAMS CLIENTS
//
// Every request is checked: a create must answer 201, a read 200 with the record written. The
// report is one line of key=value pairs on stdout: total wall time from the first request to the
// last answer, the rate, and the latency percentiles of single requests.

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.ArrayList;
import java.util.List;

public class RestartBench {
  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: RestartBench create|read ENDPOINT STREAMS CLIENTS");
      System.exit(2);
    }
    String phase = args[0];
    String endpoint = args[1];
    int streams = Integer.parseInt(args[2]);
    int clients = Integer.parseInt(args[3]);
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    long[] latencyNanos = new long[streams];
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long start = System.nanoTime();
    List<Future<?>> workers = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      workers.add(
          pool.submit(
              () -> {
                for (int i = next.getAndIncrement(); i < streams; i = next.getAndIncrement()) {
                  long sent = System.nanoTime();
                  request(http, endpoint, phase, i);
                  latencyNanos[i] = System.nanoTime() - sent;
                }
                return null;
              }));
    }
    for (Future<?> worker : workers) {
      worker.get();
    }
    long totalNanos = System.nanoTime() - start;
    pool.shutdown();
    Arrays.sort(latencyNanos);
    System.out.printf(
        "phase=%s streams=%d clients=%d total_ms=%.0f rate_per_s=%.0f p50_ms=%.1f p99_ms=%.1f"
            + " max_ms=%.1f%n",
        phase,
        streams,
        clients,
        totalNanos / 1e6,
        streams / (totalNanos / 1e9),
        quantile(latencyNanos, 0.50) / 1e6,
        quantile(latencyNanos, 0.99) / 1e6,
        latencyNanos[streams - 1] / 1e6);
  }

  private static void request(HttpClient http, String endpoint, String phase, int i)
      throws Exception {
    String name = "/bench/restart/s" + i;
    String body = "record of stream " + i;
    HttpRequest request =
        phase.equals("create")
            ? HttpRequest.newBuilder(URI.create(endpoint + name))
                .header("Content-Type", "text/plain")
                .PUT(HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(120))
                .build()
            : HttpRequest.newBuilder(URI.create(endpoint + name + "?seq=0&format=raw"))
                .GET()
                .timeout(Duration.ofSeconds(120))
                .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    int expected = phase.equals("create") ? 201 : 200;
    if (response.statusCode() != expected
        || (phase.equals("read") && !response.body().equals(body))) {
      throw new IllegalStateException(
          phase + " " + name + " answered " + response.statusCode() + ": " + response.body());
    }
  }

  private static long quantile(long[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }
}
