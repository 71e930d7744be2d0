package io.picomq.frontend.bench;

import io.netty.buffer.ByteBuf;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Load driver for live readers against a running {@code pico serve} (Pico protocol), run by {@code
 * scripts/bench-live-readers.sh}. Two scenarios:
 *
 * <ul>
 *   <li>{@code longpoll}: one parked long-poll on each of N streams (one connection each); heap and
 *       CPU of the server while they are parked; then one append per stream and the time from each
 *       append's acknowledgement to its waiter's response.
 *   <li>{@code fanout}: R SSE readers on one stream and one writer at a fixed rate; every reader
 *       must receive every record in order; the time from each append's acknowledgement to each
 *       reader's receipt of it.
 * </ul>
 *
 * Arguments are {@code --name value} pairs; see {@link #main}. The report goes to stdout. Lives in
 * the test tree: built by the normal build, never shipped in the server jar.
 */
public final class LiveReadersBench {

  private final Map<String, String> args;
  private final URI endpoint;
  private final ServerProbe probe;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(30))
          .build();

  private LiveReadersBench(Map<String, String> args) {
    this.args = args;
    this.endpoint = URI.create(arg("endpoint", "http://127.0.0.1:4437"));
    this.probe =
        new ServerProbe(
            Long.parseLong(arg("server-pid", "0")),
            arg("jcmd", "jcmd"),
            Long.parseLong(arg("clock-ticks", "100")));
  }

  /**
   * {@code --scenario longpoll|fanout --endpoint URL --server-pid PID --jcmd PATH [--streams 10000]
   * [--readers 2000] [--rate 20] [--seconds 30] [--idle-sec 10] [--threads 2] [--prefix /bench]}.
   */
  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new HashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) {
      args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
    }
    LiveReadersBench bench = new LiveReadersBench(args);
    boolean ok =
        switch (bench.arg("scenario", "longpoll")) {
          case "longpoll" -> bench.longPoll();
          case "fanout" -> bench.fanOut();
          default -> throw new IllegalArgumentException("unknown --scenario");
        };
    System.exit(ok ? 0 : 1);
  }

  // ---- long-poll --------------------------------------------------------------------------

  private boolean longPoll() throws Exception {
    int streams = Integer.parseInt(arg("streams", "10000"));
    long idleMillis = Long.parseLong(arg("idle-sec", "10")) * 1000;
    String prefix = arg("prefix", "/bench") + "/lp-" + System.nanoTime() + "/";
    IntFunction<String> name = i -> prefix + String.format(Locale.ROOT, "%05d", i);
    report("long-poll: %d streams, one parked long-poll each", streams);

    long started = System.nanoTime();
    forEachLimited(streams, 64, i -> put(name.apply(i)));
    report("  created %d streams in %.1f s", streams, seconds(System.nanoTime() - started));
    // The same node with the same streams loaded and nobody waiting: what parking adds to it.
    Thread.sleep(2_000); // a benchmark's settling pause (its input), not a wait for an effect
    long baselineBefore = probe.cpuMillis();
    long baselineStart = System.nanoTime();
    Thread.sleep(idleMillis); // the measured idle window: the benchmark's input
    long baselineCpu = probe.cpuMillis() - baselineBefore;
    double baselineSeconds = seconds(System.nanoTime() - baselineStart);
    report(
        "  server CPU idle before parking (streams loaded, no waiters): %d ms over %.1f s ="
            + " %.2f%% of one core",
        baselineCpu, baselineSeconds, 100.0 * baselineCpu / (baselineSeconds * 1000));

    long[] answeredAt = new long[streams];
    int[] statusOf = new int[streams];
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    try (LiveClient client = new LiveClient(endpoint, Integer.parseInt(arg("threads", "2")))) {
      started = System.nanoTime();
      List<CompletableFuture<?>> sent = new ArrayList<>(streams);
      for (int i = 0; i < streams; i++) {
        int index = i;
        sent.add(
            client.get(
                name.apply(i) + "?seq=0&live=long-poll",
                new LiveClient.Listener() {
                  @Override
                  public void head(int status) {
                    statusOf[index] = status;
                  }

                  @Override
                  public void content(ByteBuf content) {}

                  @Override
                  public void end() {
                    answeredAt[index] = System.nanoTime();
                    answered.incrementAndGet();
                  }

                  @Override
                  public void failed(Throwable cause) {
                    failed.incrementAndGet();
                  }
                }));
      }
      CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
      // The first read of each stream loads and opens it; let that settle before measuring idle.
      Thread.sleep(Math.max(5_000, idleMillis / 2)); // a settling pause: the benchmark's input
      report(
          "  %d long-polls sent in %.1f s; answered early: %d, failed: %d",
          streams, seconds(System.nanoTime() - started), answered.get(), failed.get());

      double heapNow = probe.heapUsedMib();
      double liveHeap = probe.liveHeapMib();
      long cpuBefore = probe.cpuMillis();
      long idleStart = System.nanoTime();
      Thread.sleep(idleMillis); // the measured idle window: the benchmark's input
      long cpuUsed = probe.cpuMillis() - cpuBefore;
      double idleSeconds = seconds(System.nanoTime() - idleStart);
      report(
          "  server heap while parked: %.0f MiB used, %.0f MiB live after a full GC",
          heapNow, liveHeap);
      report(
          "  server CPU while parked: %d ms over %.1f s = %.2f%% of one core",
          cpuUsed, idleSeconds, 100.0 * cpuUsed / (idleSeconds * 1000));
      if (answered.get() > 0 || failed.get() > 0) {
        report(
            "  FAIL: %d waiters answered and %d failed before any append",
            answered.get(), failed.get());
      }

      long[] ackedAt = new long[streams];
      long wakeCpuBefore = probe.cpuMillis();
      started = System.nanoTime();
      forEachLimited(
          streams,
          64,
          i -> {
            post(name.apply(i), "wake " + i);
            ackedAt[i] = System.nanoTime();
          });
      long appendsDone = System.nanoTime();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (answered.get() + failed.get() < streams && System.nanoTime() < deadline) {
        Thread.sleep(20); // poll interval of a deadline loop; the report states any shortfall
      }
      long wakeCpu = probe.cpuMillis() - wakeCpuBefore;
      report(
          "  %d appends (64 at a time) in %.1f s; waiters answered: %d, failed: %d; server CPU"
              + " %.0f µs per append and wake",
          streams,
          seconds(appendsDone - started),
          answered.get(),
          failed.get(),
          1000.0 * wakeCpu / streams);
      long[] latency = new long[streams];
      int n = 0;
      int wrong = 0;
      for (int i = 0; i < streams; i++) {
        if (answeredAt[i] != 0) {
          latency[n++] = answeredAt[i] - ackedAt[i];
          if (statusOf[i] != 200) {
            wrong++;
          }
        }
      }
      report(
          "  wake latency, append acknowledged -> waiter's response received: %s",
          percentiles(Arrays.copyOf(latency, n)));
      boolean ok = answered.get() == streams && failed.get() == 0 && wrong == 0;
      report("  %s", ok ? "OK: every waiter woke with its record" : "FAIL: " + wrong + " non-200");
      return ok;
    }
  }

  // ---- fan-out ----------------------------------------------------------------------------

  private boolean fanOut() throws Exception {
    int readers = Integer.parseInt(arg("readers", "2000"));
    int rate = Integer.parseInt(arg("rate", "20"));
    int records = rate * Integer.parseInt(arg("seconds", "30"));
    String stream = arg("prefix", "/bench") + "/fan-" + System.nanoTime();
    report("fan-out: 1 writer at %d records/s, %d records, %d SSE readers", rate, records, readers);
    put(stream);

    long[][] receivedAt = new long[readers][records];
    SseReader[] feeds = new SseReader[readers];
    try (LiveClient client = new LiveClient(endpoint, Integer.parseInt(arg("threads", "2")))) {
      long started = System.nanoTime();
      for (int r = 0; r < readers; r++) {
        feeds[r] = new SseReader(receivedAt[r]);
        client.get(stream + "?seq=0&live=sse", feeds[r]).join();
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (Arrays.stream(feeds).anyMatch(f -> !f.upToDate) && System.nanoTime() < deadline) {
        Thread.sleep(20); // poll interval of a deadline loop; the report states any shortfall
      }
      report(
          "  %d readers connected and up to date in %.1f s",
          Arrays.stream(feeds).filter(f -> f.upToDate).count(),
          seconds(System.nanoTime() - started));

      // Open loop: a record is sent when its time comes, whether or not the previous one was
      // acknowledged, so a slow server shows up as latency, not as a lower rate. Appends may
      // then overtake each other; each acknowledgement says which seq it got.
      long[] ackedAt = new long[records];
      AtomicInteger writeFailures = new AtomicInteger();
      List<CompletableFuture<?>> writes = new ArrayList<>(records);
      long cpuBefore = probe.cpuMillis();
      started = System.nanoTime();
      long interval = TimeUnit.SECONDS.toNanos(1) / rate;
      for (int i = 0; i < records; i++) {
        long due = started + i * interval;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        writes.add(
            http.sendAsync(append(stream, "record " + i), HttpResponse.BodyHandlers.discarding())
                .whenComplete(
                    (answer, failure) -> {
                      long now = System.nanoTime();
                      if (failure != null || answer.statusCode() != 200) {
                        writeFailures.incrementAndGet();
                        return;
                      }
                      int seq =
                          Integer.parseInt(
                              answer.headers().firstValue("pico-start-seq").orElseThrow());
                      ackedAt[seq] = now;
                    }));
      }
      long writing = System.nanoTime() - started;
      CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
          .exceptionally(ignored -> null)
          .join();
      if (writeFailures.get() > 0) {
        report("  FAIL: %d appends failed", writeFailures.get());
      }
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (Arrays.stream(feeds).anyMatch(f -> f.count < records && f.failure == null)
          && System.nanoTime() < deadline) {
        Thread.sleep(20); // poll interval of a deadline loop; the report states any shortfall
      }
      long cpuUsed = probe.cpuMillis() - cpuBefore;
      double heapNow = probe.heapUsedMib();
      report(
          "  wrote %d records in %.1f s (%.1f/s); %d deliveries expected",
          records, seconds(writing), records / seconds(writing), (long) records * readers);
      long complete = Arrays.stream(feeds).filter(f -> f.count == records && f.inOrder).count();
      long outOfOrder = Arrays.stream(feeds).filter(f -> !f.inOrder).count();
      long broken = Arrays.stream(feeds).filter(f -> f.failure != null).count();
      report(
          "  readers with every record in order: %d of %d (out of order: %d, failed: %d)",
          complete, readers, outOfOrder, broken);
      long[] latency = new long[records * readers];
      int n = 0;
      for (int r = 0; r < readers; r++) {
        for (int i = 0; i < feeds[r].count; i++) {
          latency[n++] = receivedAt[r][i] - ackedAt[i];
        }
      }
      report(
          "  delivery latency, append acknowledged -> event received (negative: the event"
              + " arrived before the writer heard the acknowledgement): %s",
          percentiles(Arrays.copyOf(latency, n)));
      report(
          "  server CPU while writing: %.0f%% of one core, %.1f µs per delivery; heap %.0f MiB"
              + " used",
          100.0 * cpuUsed / (seconds(System.nanoTime() - started) * 1000),
          1000.0 * cpuUsed / Math.max(1, n),
          heapNow);
      boolean ok = complete == readers;
      report("  %s", ok ? "OK: every reader got every record in order" : "FAIL");
      return ok;
    }
  }

  /** Parses an SSE response: data events carry the record's seq as their id. */
  private static final class SseReader implements LiveClient.Listener {
    private final long[] receivedAt;
    private final StringBuilder pending = new StringBuilder();
    volatile int count;
    volatile boolean upToDate;
    volatile boolean inOrder = true;
    volatile Throwable failure;

    SseReader(long[] receivedAt) {
      this.receivedAt = receivedAt;
    }

    @Override
    public void head(int status) {
      if (status != 200) {
        failure = new IllegalStateException("status " + status);
      }
    }

    @Override
    public void content(ByteBuf content) {
      long now = System.nanoTime();
      pending.append(content.toString(StandardCharsets.UTF_8));
      int end;
      while ((end = pending.indexOf("\n\n")) >= 0) {
        String event = pending.substring(0, end);
        pending.delete(0, end + 2);
        onEvent(event, now);
      }
    }

    private void onEvent(String event, long now) {
      String id = null;
      boolean control = false;
      for (String line : event.split("\n")) {
        if (line.startsWith("id:")) {
          id = line.substring(3).trim();
        } else if (line.startsWith("event:") && line.substring(6).trim().equals("control")) {
          control = true;
        }
      }
      if (control) {
        upToDate = true;
        return;
      }
      if (id == null) {
        return; // a keep-alive comment
      }
      long seq = Long.parseLong(id);
      int next = count;
      if (seq != next || next >= receivedAt.length) {
        inOrder = false;
        return;
      }
      receivedAt[next] = now;
      count = next + 1;
    }

    @Override
    public void end() {}

    @Override
    public void failed(Throwable cause) {
      failure = cause;
    }
  }

  // ---- helpers ----------------------------------------------------------------------------

  private interface IndexedTask {
    void run(int index) throws Exception;
  }

  /** Runs {@code task} for 0..n-1 on virtual threads, at most {@code limit} at a time. */
  private static void forEachLimited(int n, int limit, IndexedTask task) throws Exception {
    Semaphore slots = new Semaphore(limit);
    AtomicLong failures = new AtomicLong();
    AtomicInteger firstFailure = new AtomicInteger(-1);
    Throwable[] cause = new Throwable[1];
    try (var executor = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < n; i++) {
        slots.acquire();
        int index = i;
        executor.execute(
            () -> {
              try {
                task.run(index);
              } catch (Exception e) {
                failures.incrementAndGet();
                if (firstFailure.compareAndSet(-1, index)) {
                  cause[0] = e;
                }
              } finally {
                slots.release();
              }
            });
      }
    }
    if (failures.get() > 0) {
      throw new IllegalStateException(
          failures.get() + " requests failed, the first (" + firstFailure.get() + ")", cause[0]);
    }
  }

  private void put(String stream) throws Exception {
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(endpoint.resolve(stream))
                .header("Content-Type", "text/plain")
                .PUT(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 201 && answer.statusCode() != 200) {
      throw new IllegalStateException(
          "PUT " + stream + ": " + answer.statusCode() + " " + answer.body());
    }
  }

  private HttpRequest append(String stream, String body) {
    return HttpRequest.newBuilder(endpoint.resolve(stream))
        .header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  private void post(String stream, String body) throws Exception {
    HttpResponse<String> answer =
        http.send(append(stream, body), HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 200) {
      throw new IllegalStateException(
          "POST " + stream + ": " + answer.statusCode() + " " + answer.body());
    }
  }

  private static String percentiles(long[] nanos) {
    if (nanos.length == 0) {
      return "no samples";
    }
    Arrays.sort(nanos);
    return String.format(
        Locale.ROOT,
        "n=%d p50=%.1f ms p99=%.1f ms p99.9=%.1f ms max=%.1f ms",
        nanos.length,
        millis(nanos[(int) (nanos.length * 0.50)]),
        millis(nanos[Math.min(nanos.length - 1, (int) (nanos.length * 0.99))]),
        millis(nanos[Math.min(nanos.length - 1, (int) (nanos.length * 0.999))]),
        millis(nanos[nanos.length - 1]));
  }

  private static double millis(long nanos) {
    return nanos / 1e6;
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  private String arg(String name, String fallback) {
    return args.getOrDefault(name, fallback);
  }

  private static void report(String format, Object... values) {
    System.out.println(String.format(Locale.ROOT, format, values));
    System.out.flush();
  }
}
