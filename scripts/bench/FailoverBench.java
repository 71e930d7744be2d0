// The driver of scripts/bench-failover.sh: a single-file program (run with `java
// FailoverBench.java ...`, no build) that runs a cluster of `pico serve` processes, keeps appending
// to streams spread over them, SIGKILLs one node per round and measures how long each of the dead
// node's streams takes to accept an append again through a live node. At the end it reads every
// stream back and checks that every acknowledged record is there exactly once.
//
//   java FailoverBench.java --pico PATH --work DIR --meta-url URL --storage ID@URI --ttl 10s
//       [--nodes 3] [--streams 32] [--rounds 5] [--warmup-sec 5] [--rate 20] [--record-size 256]
//       [--bulk-sec 0] [--bulk-records 100] [--wal-upload-interval-ms 600000] [--label NAME]
//
// Each round creates --streams new streams, round robin over the nodes (a stream opens on the node
// that created it), appends to each from its own client (at most --rate appends/s, one in flight)
// for --warmup-sec, SIGKILLs a node (rounds go 3, 2, 1, 3, ...) and waits until every stream the
// victim held open took an append sent after the kill, then restarts the victim. The clients talk
// to the node that created their stream; one whose node refuses connections moves to the next node
// (a client with a list of endpoints), which redirects it (307) to the dead node until its liveness
// row lapses, then answers 503 recovering until a live node took the dead one's WAL over and closed
// the stream, then opens the stream itself. Half of the clients retry every 100 ms ("poll": what
// the servers offer), the other half pause as the Java SDK does (100 ms doubling to 5 s, never
// sooner than Retry-After: 2 s after a 503 recovering, 1 s after a refused redirect).
//
// With --bulk-sec > 0 a last round appends batches of --bulk-records records for that long before
// the kill, so the victim's WAL holds more for the recovery rate. Each attempt's records are
// unique, so an attempt whose outcome is unknown (the connection broke) is never resent: any
// record read twice is a duplicate, any acknowledged one not read is lost.
//
// stdout: one line per round, then `result key=value ...` lines for the script's table.

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class FailoverBench {

  // The nodes log with a time of day (see Node.start), so the phases can be placed after the kill.
  static final Pattern TAKING_OVER =
      Pattern.compile(
          "(?m)^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .*node (\\d+) epoch (\\d+) stopped renewing its"
              + " liveness and holds streams open");
  static final Pattern TOOK_OVER =
      Pattern.compile(
          "(?m)^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .*took over node (\\d+) epoch (\\d+) in (\\d+) ms: WAL fenced at epoch (\\d+), (\\d+)"
              + " records read, (\\d+) uploaded \\((\\d+) bytes\\), (\\d+) already committed or"
              + " dropped; (\\d+) streams closed");

  static HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      opt.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    Bench bench = new Bench(opt);
    try {
      bench.run();
    } finally {
      bench.stopAll();
    }
  }

  /** What one kill measured. */
  record Round(
      int round,
      int victim,
      int affected,
      List<Long> pollMillis,
      List<Long> sdkMillis,
      long firstRecoveringMillis,
      Optional<Takeover> takeover,
      long restartMillis,
      boolean bulk) {}

  /**
   * The taker's log lines: when it began (after the kill) and ended, and what it did.
   *
   * @param beganMillis from the kill to the taker's "taking over" line
   * @param endedMillis from the kill to its "took over" line
   */
  record Takeover(
      int taker,
      long beganMillis,
      long endedMillis,
      long millis,
      long walRecords,
      long uploaded,
      long bytes,
      long closed) {}

  static final class Bench {
    final String pico;
    final Path work;
    final String metaUrl;
    final String storage;
    final String ttl;
    final int nodeCount;
    final int streams;
    final int rounds;
    final int warmupSec;
    final double rate;
    final int recordSize;
    final int bulkSec;
    final int bulkRecords;
    final String label;
    final String walUploadIntervalMillis;
    final List<Node> nodes = new ArrayList<>();
    final List<Appender> appenders = new ArrayList<>();
    final List<Round> results = new ArrayList<>();
    final Map<String, LongAdder> seenAfterKill = new ConcurrentHashMap<>();
    final java.util.Queue<Long> warmLatencies = new java.util.concurrent.ConcurrentLinkedQueue<>();
    volatile long killedAt;
    final java.util.Set<String> killed = new java.util.HashSet<>();
    LocalTime killedAtTimeOfDay;

    Bench(Map<String, String> o) {
      pico = required(o, "pico");
      work = Path.of(required(o, "work"));
      metaUrl = required(o, "meta-url");
      storage = required(o, "storage");
      ttl = required(o, "ttl");
      nodeCount = Integer.parseInt(o.getOrDefault("nodes", "3"));
      streams = Integer.parseInt(o.getOrDefault("streams", "32"));
      rounds = Integer.parseInt(o.getOrDefault("rounds", "5"));
      warmupSec = Integer.parseInt(o.getOrDefault("warmup-sec", "5"));
      rate = Double.parseDouble(o.getOrDefault("rate", "20"));
      recordSize = Integer.parseInt(o.getOrDefault("record-size", "256"));
      bulkSec = Integer.parseInt(o.getOrDefault("bulk-sec", "0"));
      bulkRecords = Integer.parseInt(o.getOrDefault("bulk-records", "100"));
      label = o.getOrDefault("label", "ttl " + ttl);
      walUploadIntervalMillis = o.getOrDefault("wal-upload-interval-ms", "600000");
    }

    void run() throws Exception {
      Files.createDirectories(work);
      for (int id = 1; id <= nodeCount; id++) {
        nodes.add(new Node(this, id));
      }
      // The first node creates the schema; the others then start together.
      nodes.get(0).start();
      nodes.get(0).awaitReady();
      for (Node n : nodes.subList(1, nodes.size())) {
        n.start();
      }
      for (Node n : nodes.subList(1, nodes.size())) {
        n.awaitReady();
      }
      log("%d nodes ready, node TTL %s", nodeCount, ttl);
      int total = rounds + (bulkSec > 0 ? 1 : 0);
      for (int r = 1; r <= total; r++) {
        boolean bulk = r > rounds;
        results.add(round(r, bulk));
      }
      verify();
    }

    Round round(int r, boolean bulk) throws Exception {
      int batch = bulk ? bulkRecords : 1;
      List<Appender> mine = new ArrayList<>();
      for (int i = 0; i < streams; i++) {
        Node creator = nodes.get(i % nodeCount);
        Appender a = new Appender(this, String.format("/failover/r%02d/s%02d", r, i), creator.id);
        a.create(creator);
        a.sdk = i % 2 == 1;
        a.batch = batch;
        mine.add(a);
      }
      appenders.addAll(mine);
      killedAt = 0;
      seenAfterKill.clear();
      warmLatencies.clear();
      mine.forEach(Appender::start);
      Thread.sleep((bulk ? bulkSec : warmupSec) * 1000L);

      // The bulk round kills the node restarted last: its WAL holds the bulk appends only.
      Node victim = nodes.get(nodeCount - 1 - (bulk ? r - 2 : r - 1) % nodeCount);
      List<Appender> affected = new ArrayList<>();
      for (Appender a : mine) {
        if (victim.holdsOpen(a.name)) {
          affected.add(a);
        }
      }
      // Its supervisor restarts a node that was taken over while alive: kill the process running now.
      victim.readEpoch();
      long victimEpoch = victim.epoch;
      killed.add(victim.id + "@" + victimEpoch);
      killedAtTimeOfDay = LocalTime.now();
      killedAt = System.nanoTime();
      victim.kill();
      log(
          "round %d: SIGKILLed node %d (epoch %d), %d of this round's %d streams were open on it",
          r, victim.id, victimEpoch, affected.size(), streams);

      long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
      while (System.nanoTime() < deadline && affected.stream().anyMatch(a -> a.recoveredAt == 0)) {
        Thread.sleep(50);
      }
      List<Long> poll = new ArrayList<>();
      List<Long> sdk = new ArrayList<>();
      List<Long> firstAppend = new ArrayList<>();
      for (Appender a : affected) {
        firstAppend.add(a.recoveredAppendNanos / 1_000_000);
        long ms = a.recoveredAt == 0 ? -1 : (a.recoveredAt - killedAt) / 1_000_000;
        (a.sdk ? sdk : poll).add(ms);
      }
      long firstRecovering =
          mine.stream()
              .mapToLong(a -> a.firstRecoveringAt)
              .filter(t -> t != 0)
              .min()
              .stream()
              .map(t -> (t - killedAt) / 1_000_000)
              .findFirst()
              .orElse(-1);
      Optional<Takeover> takeover = awaitTakeover(victim.id, victimEpoch);
      mine.forEach(Appender::stop);
      for (Appender a : mine) {
        a.join();
      }
      long restartStarted = System.nanoTime();
      victim.start();
      victim.awaitReady();
      long restartMillis = (System.nanoTime() - restartStarted) / 1_000_000;
      Round result =
          new Round(
              r, victim.id, affected.size(), poll, sdk, firstRecovering, takeover, restartMillis,
              bulk);
      log(
          "round %d%s: first append after the kill, poll clients %s ms, SDK-paced %s ms; first"
              + " 503 recovering at %d ms; %s; those first appends took %s ms each (before the"
              + " kill: p50 %s ms, p99 %s ms); node %d ready again %d ms after its restart;"
              + " clients saw %s",
          r,
          bulk ? " (bulk)" : "",
          poll,
          sdk,
          firstRecovering,
          takeover
              .map(
                  t ->
                      String.format(
                          "node %d began taking over at %d ms and was done at %d ms (%d ms by its"
                              + " log): %d WAL records read, %d uploaded (%d bytes), %d streams"
                              + " closed",
                          t.taker,
                          t.beganMillis,
                          t.endedMillis,
                          t.millis,
                          t.walRecords,
                          t.uploaded,
                          t.bytes,
                          t.closed))
              .orElse("no takeover line found"),
          firstAppend,
          pct(List.copyOf(warmLatencies), 0.5),
          pct(List.copyOf(warmLatencies), 0.99),
          victim.id,
          restartMillis,
          new TreeMap<>(snapshot(seenAfterKill)));
      System.out.printf(
          "round=%d bulk=%s victim=%d affected=%d poll_ms=%s sdk_ms=%s first_append_ms=%s"
              + " warm_p50_ms=%s first_recovering_ms=%d"
              + " takeover_began_ms=%s takeover_ended_ms=%s takeover_ms=%s wal_records=%s uploaded=%s uploaded_bytes=%s restart_ms=%d%n",
          r,
          bulk,
          victim.id,
          affected.size(),
          join(poll),
          join(sdk),
          join(firstAppend),
          pct(List.copyOf(warmLatencies), 0.5),
          firstRecovering,
          takeover.map(t -> "" + t.beganMillis).orElse("-"),
          takeover.map(t -> "" + t.endedMillis).orElse("-"),
          takeover.map(t -> "" + t.millis).orElse("-"),
          takeover.map(t -> "" + t.walRecords).orElse("-"),
          takeover.map(t -> "" + t.uploaded).orElse("-"),
          takeover.map(t -> "" + t.bytes).orElse("-"),
          restartMillis);
      return result;
    }

    /** The taker's log line for this process of the victim, waited for up to 60 s. */
    Optional<Takeover> awaitTakeover(int victim, long epoch) throws Exception {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      do {
        for (Node n : nodes) {
          if (n.id == victim) {
            continue;
          }
          String text = Files.readString(n.log, StandardCharsets.ISO_8859_1);
          Matcher m = TOOK_OVER.matcher(text);
          while (m.find()) {
            if (Integer.parseInt(m.group(2)) == victim && Long.parseLong(m.group(3)) == epoch) {
              long began = -1;
              Matcher start = TAKING_OVER.matcher(text);
              while (start.find()) {
                if (Integer.parseInt(start.group(2)) == victim
                    && Long.parseLong(start.group(3)) == epoch) {
                  began = sinceKill(start.group(1));
                }
              }
              return Optional.of(
                  new Takeover(
                      n.id,
                      began,
                      sinceKill(m.group(1)),
                      Long.parseLong(m.group(4)),
                      Long.parseLong(m.group(6)),
                      Long.parseLong(m.group(7)),
                      Long.parseLong(m.group(8)),
                      Long.parseLong(m.group(10))));
            }
          }
        }
        Thread.sleep(200);
      } while (System.nanoTime() < deadline);
      return Optional.empty();
    }

    /** Milliseconds from the kill to a log line's time of day (same machine, same clock). */
    long sinceKill(String timeOfDay) {
      long line = LocalTime.parse(timeOfDay).toNanoOfDay() / 1_000_000;
      long kill = killedAtTimeOfDay.toNanoOfDay() / 1_000_000;
      long diff = line - kill;
      return diff < -43_200_000L ? diff + 86_400_000L : diff;
    }

    /** Reads every stream back and checks each acknowledged record is there exactly once. */
    void verify() throws Exception {
      long acked = 0;
      long lost = 0;
      long duplicated = 0;
      long outOfOrder = 0;
      long unknownPresent = 0;
      long unknownAbsent = 0;
      List<String> examples = new ArrayList<>();
      for (Appender a : appenders) {
        Map<String, Integer> count = new HashMap<>();
        List<String> order = new ArrayList<>();
        for (String line : readAll(a.name)) {
          String id = line.substring(0, line.indexOf('.') < 0 ? line.length() : line.indexOf('.'));
          if (count.merge(id, 1, Integer::sum) == 1) {
            order.add(id);
          }
        }
        for (Map.Entry<String, Integer> e : count.entrySet()) {
          if (e.getValue() > 1) {
            duplicated += e.getValue() - 1;
            if (examples.size() < 5) {
              examples.add("duplicated " + a.name + " " + e.getKey() + " x" + e.getValue());
            }
          }
        }
        Map<String, Integer> position = new HashMap<>();
        for (int i = 0; i < order.size(); i++) {
          position.put(order.get(i), i);
        }
        int last = -1;
        for (long attempt : a.acked) {
          for (int k = 0; k < a.batchOf(attempt); k++) {
            acked++;
            String id = Appender.recordId(attempt, k);
            Integer at = position.get(id);
            if (at == null) {
              lost++;
              if (examples.size() < 5) {
                examples.add("lost " + a.name + " " + id);
              }
            } else {
              if (at < last) {
                outOfOrder++;
              }
              last = at;
            }
          }
        }
        for (long attempt : a.unknown) {
          if (position.containsKey(Appender.recordId(attempt, 0))) {
            unknownPresent++;
          } else {
            unknownAbsent++;
          }
        }
      }
      List<String> spurious = new ArrayList<>();
      long restarts = 0;
      for (Node n : nodes) {
        String text = Files.readString(n.log, StandardCharsets.ISO_8859_1);
        Matcher m = TOOK_OVER.matcher(text);
        while (m.find()) {
          if (!killed.contains(m.group(2) + "@" + m.group(3))) {
            spurious.add("node " + n.id + " took over live node " + m.group(2) + " at " + m.group(1));
          }
        }
        restarts += Pattern.compile("starting again with a new epoch").matcher(text).results().count();
      }
      log(
          "takeovers of processes that were not killed: %d %s; processes restarted by their"
              + " supervisor after a takeover: %d",
          spurious.size(), spurious, restarts);
      long sentNotAcked =
          appenders.stream().mapToLong(a -> a.attempts - a.acked.size() - a.unknown.size()).sum();
      log(
          "verify: %d acknowledged records in %d streams; lost %d, duplicated %d, out of order %d;"
              + " %d appends of unknown outcome (%d present, %d absent); %d refused or failed"
              + " attempts%s",
          acked,
          appenders.size(),
          lost,
          duplicated,
          outOfOrder,
          unknownPresent + unknownAbsent,
          unknownPresent,
          unknownAbsent,
          sentNotAcked,
          examples.isEmpty() ? "" : ": " + examples);

      List<Long> poll = new ArrayList<>();
      List<Long> sdk = new ArrayList<>();
      long uploaded = 0;
      long bytes = 0;
      long millis = 0;
      for (Round r : results) {
        if (!r.bulk) {
          poll.addAll(r.pollMillis);
          sdk.addAll(r.sdkMillis);
        }
      }
      StringBuilder rates = new StringBuilder();
      for (Round r : results) {
        if (r.takeover.isPresent()) {
          Takeover t = r.takeover.get();
          uploaded += t.uploaded;
          bytes += t.bytes;
          millis += t.millis;
          rates.append(rates.isEmpty() ? "" : ",").append(t.uploaded).append('/').append(t.millis);
        }
      }
      Optional<Takeover> bulk =
          results.stream().filter(Round::bulk).findFirst().flatMap(Round::takeover);
      System.out.printf(
          "result label=%s ttl=%s kills=%d samples_poll=%d poll_p50_ms=%s poll_p99_ms=%s"
              + " poll_max_ms=%s samples_sdk=%d sdk_p50_ms=%s sdk_p99_ms=%s sdk_max_ms=%s"
              + " unrecovered=%d first_recovering_ms=%s takeover_began_ms=%s takeover_ended_ms=%s"
              + " takeover_ms=%s acked=%d lost=%d"
              + " duplicated=%d out_of_order=%d unknown=%d takeover_uploaded=%d"
              + " takeover_bytes=%d takeover_total_ms=%d takeovers=%s bulk_uploaded=%s"
              + " bulk_bytes=%s bulk_ms=%s spurious_takeovers=%d%n",
          label.replace(' ', '_'),
          ttl,
          results.stream().filter(r -> !r.bulk).count(),
          poll.size(),
          pct(poll, 0.50),
          pct(poll, 0.99),
          pct(poll, 1.0),
          sdk.size(),
          pct(sdk, 0.50),
          pct(sdk, 0.99),
          pct(sdk, 1.0),
          poll.stream().filter(x -> x < 0).count() + sdk.stream().filter(x -> x < 0).count(),
          join(results.stream().filter(r -> !r.bulk).map(Round::firstRecoveringMillis).toList()),
          join(
              results.stream()
                  .filter(r -> !r.bulk)
                  .map(r -> r.takeover.map(Takeover::beganMillis).orElse(-1L))
                  .toList()),
          join(
              results.stream()
                  .filter(r -> !r.bulk)
                  .map(r -> r.takeover.map(Takeover::endedMillis).orElse(-1L))
                  .toList()),
          join(
              results.stream()
                  .filter(r -> !r.bulk)
                  .map(r -> r.takeover.map(Takeover::millis).orElse(-1L))
                  .toList()),
          acked,
          lost,
          duplicated,
          outOfOrder,
          unknownPresent + unknownAbsent,
          uploaded,
          bytes,
          millis,
          rates,
          bulk.map(t -> "" + t.uploaded).orElse("-"),
          bulk.map(t -> "" + t.bytes).orElse("-"),
          bulk.map(t -> "" + t.millis).orElse("-"),
          spurious.size());
    }

    /** Every record body of a stream, as lines (each body ends with a newline). */
    List<String> readAll(String name) throws Exception {
      List<String> lines = new ArrayList<>();
      long seq = 0;
      for (int attempt = 0; ; ) {
        URI uri =
            nodes.get(0).endpoint().resolve(name + "?seq=" + seq + "&format=raw&count=10000&bytes=16777216");
        HttpResponse<String> response = sendFollowing(uri);
        if (response.statusCode() != 200) {
          if (++attempt > 100) {
            throw new IllegalStateException(
                "read " + name + " answered " + response.statusCode() + ": " + response.body());
          }
          Thread.sleep(200);
          continue;
        }
        String body = response.body();
        if (!body.isEmpty()) {
          lines.addAll(Arrays.asList(body.split("\n")));
        }
        seq = Long.parseLong(response.headers().firstValue("Pico-Next-Seq").orElseThrow());
        if (response.headers().firstValue("Pico-Up-To-Date").orElse("").equals("true")) {
          return lines;
        }
      }
    }

    void stopAll() {
      for (Appender a : appenders) {
        a.stop();
      }
      for (Node n : nodes) {
        n.stop();
      }
    }
  }

  /** One `pico serve` process at a time for one node id. */
  static final class Node {
    final Bench bench;
    final int id;
    final int port = freePort();
    final int adminPort = freePort();
    final Path log;
    Process process;
    long epoch;

    Node(Bench bench, int id) {
      this.bench = bench;
      this.id = id;
      this.log = bench.work.resolve("node-" + id + ".log");
    }

    URI endpoint() {
      return URI.create("http://127.0.0.1:" + port);
    }

    URI admin() {
      return URI.create("http://127.0.0.1:" + adminPort);
    }

    void start() throws IOException {
      List<String> command =
          List.of(
              bench.pico,
              "serve",
              "--node-id",
              Integer.toString(id),
              "--meta-url",
              bench.metaUrl,
              "--storage=" + bench.storage,
              "--listen",
              "127.0.0.1:" + port,
              "--admin-listen",
              "127.0.0.1:" + adminPort,
              "--node-ttl",
              bench.ttl,
              // By default acknowledged records stay in the WAL until the kill (the takeover must
              // upload them all); a shorter interval moves them to objects sooner.
              "--wal-upload-threshold",
              "64MiB",
              "--wal-upload-interval-ms",
              bench.walUploadIntervalMillis);
      // A time of day on every log line: the takeover's phases are placed after the kill by it.
      String javaOpts =
          System.getenv().getOrDefault("PICO_JAVA_OPTS", "")
              + " -Dorg.slf4j.simpleLogger.showDateTime=true"
              + " -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS";
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.environment().put("PICO_NO_BUILD", "1");
      builder.environment().put("PICO_JAVA_OPTS", javaOpts.strip());
      process = builder.start();
    }

    /** The epoch of the process answering now (a takeover of a live process restarts it). */
    void readEpoch() throws Exception {
      Matcher m =
          Pattern.compile("\"nodeEpoch\"\\s*:\\s*(\\d+)").matcher(get(admin().resolve("/ready")).body());
      if (m.find()) {
        epoch = Long.parseLong(m.group(1));
      }
    }

    void awaitReady() throws Exception {
      long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IllegalStateException("node " + id + " exited; see " + log);
        }
        try {
          HttpResponse<String> ready = get(admin().resolve("/ready"));
          if (ready.statusCode() == 200) {
            Matcher m = Pattern.compile("\"nodeEpoch\"\\s*:\\s*(\\d+)").matcher(ready.body());
            if (m.find()) {
              epoch = Long.parseLong(m.group(1));
              return;
            }
          }
        } catch (IOException notYet) {
          // not listening yet
        }
        Thread.sleep(200);
      }
      throw new IllegalStateException("node " + id + " not ready after 180 s; see " + log);
    }

    /** Whether the stream is open on this node's current process, per its own admin API. */
    boolean holdsOpen(String name) throws Exception {
      HttpResponse<String> r = get(admin().resolve("/admin/streams" + name));
      return r.statusCode() == 200
          && r.body().matches("(?s).*\"owner\"\\s*:\\s*" + id + "\\b.*")
          && r.body().matches("(?s).*\"state\"\\s*:\\s*\"open\".*");
    }

    /** SIGKILL: Process.destroyForcibly on Linux; bin/pico execs the JVM, so it is the JVM's pid. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor();
    }

    void stop() {
      if (process == null || !process.isAlive()) {
        return;
      }
      process.destroy();
      try {
        if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** One client appending to one stream, one append in flight. */
  static final class Appender {
    final Bench bench;
    final String name;
    int entry;
    boolean sdk;
    int batch = 1;
    Thread thread;
    volatile boolean stopped;
    long attempts;
    final List<Long> acked = new ArrayList<>();
    final List<Long> unknown = new ArrayList<>();
    final Map<Long, Integer> batches = new HashMap<>();
    volatile long recoveredAt;
    volatile long recoveredAppendNanos;
    volatile long firstRecoveringAt;

    Appender(Bench bench, String name, int entry) {
      this.bench = bench;
      this.name = name;
      this.entry = entry;
    }

    static String recordId(long attempt, int k) {
      return "a" + attempt + "k" + k;
    }

    int batchOf(long attempt) {
      return batches.getOrDefault(attempt, 1);
    }

    void create(Node node) throws Exception {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(node.endpoint().resolve(name))
                  .header("Content-Type", "text/plain")
                  .PUT(HttpRequest.BodyPublishers.noBody())
                  .timeout(Duration.ofSeconds(60))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 201) {
        throw new IllegalStateException("create " + name + ": " + r.statusCode() + " " + r.body());
      }
    }

    void start() {
      thread = Thread.ofVirtual().name("append " + name).start(this::loop);
    }

    void stop() {
      stopped = true;
    }

    void join() throws InterruptedException {
      thread.join();
    }

    private void loop() {
      long minGapNanos = bench.rate > 0 ? (long) (1e9 / bench.rate) : 0;
      int failures = 0;
      while (!stopped) {
        long attempt = attempts++;
        if (batch > 1) {
          batches.put(attempt, batch);
        }
        long sentAt = System.nanoTime();
        Outcome outcome = send(attempt);
        long now = System.nanoTime();
        long killed = bench.killedAt;
        if (killed != 0 && sentAt >= killed && outcome.kind != Kind.ACK) {
          bench.seenAfterKill.computeIfAbsent(outcome.label, k -> new LongAdder()).increment();
          if (outcome.label.equals("503 recovering") && firstRecoveringAt == 0) {
            firstRecoveringAt = now;
          }
        }
        long pause;
        switch (outcome.kind) {
          case ACK -> {
            acked.add(attempt);
            if (killed != 0 && sentAt >= killed && recoveredAt == 0) {
              recoveredAt = now;
              recoveredAppendNanos = now - sentAt;
            } else if (killed == 0) {
              bench.warmLatencies.add((now - sentAt) / 1_000_000);
            }
            failures = 0;
            pause = minGapNanos - (now - sentAt);
          }
          case ENTRY_REFUSED -> {
            entry = entry % bench.nodeCount + 1; // the next endpoint of the client's list
            pause = 0;
          }
          default -> {
            if (outcome.kind == Kind.UNKNOWN) {
              unknown.add(attempt);
            }
            pause = sdk ? sdkPause(failures, outcome.retryAfterSeconds) : 100_000_000L;
            failures++;
          }
        }
        if (pause > 0) {
          try {
            Thread.sleep(Duration.ofNanos(pause));
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }

    /** The SDK's pause (RetryBackoff: 100 ms doubling to 5 s, 20% jitter, Retry-After a floor). */
    static long sdkPause(int failures, int retryAfterSeconds) {
      long full = Math.min(5_000_000_000L, 100_000_000L << Math.min(failures, 10));
      long drawn = (long) (full * 0.2 * ThreadLocalRandom.current().nextDouble());
      return Math.max(full - drawn, retryAfterSeconds * 1_000_000_000L);
    }

    private Outcome send(long attempt) {
      byte[] body = body(attempt);
      String type = batch > 1 ? "application/vnd.picomq.batch+json" : "text/plain";
      URI first = bench.nodes.get(entry - 1).endpoint().resolve(name);
      HttpResponse<String> r;
      try {
        r = http.send(post(first, type, body), HttpResponse.BodyHandlers.ofString());
      } catch (ConnectException e) {
        return new Outcome(Kind.ENTRY_REFUSED, "entry refused", 0);
      } catch (IOException e) {
        return unknown(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Outcome(Kind.FAILED, "interrupted", 0);
      }
      if (r.statusCode() == 307) {
        URI next = first.resolve(r.headers().firstValue("Location").orElseThrow());
        try {
          r = http.send(post(next, type, body), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
          // Nothing was sent: the SDK retries this like a 503 with Retry-After 1.
          return new Outcome(Kind.FAILED, "307 to a refused node", 1);
        } catch (IOException e) {
          return unknown(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return new Outcome(Kind.FAILED, "interrupted", 0);
        }
      }
      if (r.statusCode() == 200) {
        return new Outcome(Kind.ACK, "200", 0);
      }
      Matcher code = Pattern.compile("\"error\"\\s*:\\s*\"([a-z_]+)\"").matcher(r.body());
      String label = r.statusCode() + (code.find() ? " " + code.group(1) : "");
      int retryAfter =
          r.headers().firstValue("Retry-After").map(Integer::parseInt).orElse(0);
      boolean mayHaveCompleted = r.body().contains("\"may_have_completed\":true");
      return new Outcome(mayHaveCompleted ? Kind.UNKNOWN : Kind.FAILED, label, retryAfter);
    }

    private static Outcome unknown(IOException e) {
      String label = e instanceof HttpTimeoutException ? "timeout" : "connection broken";
      return new Outcome(Kind.UNKNOWN, label, 0);
    }

    private HttpRequest post(URI uri, String type, byte[] body) {
      return HttpRequest.newBuilder(uri)
          .header("Content-Type", type)
          .POST(HttpRequest.BodyPublishers.ofByteArray(body))
          .timeout(Duration.ofSeconds(60))
          .build();
    }

    /** Records of at least record-size bytes: the id, dots, a newline (the raw read splits on it). */
    private byte[] body(long attempt) {
      if (batch == 1) {
        return record(attempt, 0).getBytes(StandardCharsets.UTF_8);
      }
      StringBuilder json = new StringBuilder("{\"records\":[");
      for (int k = 0; k < batch; k++) {
        String text = record(attempt, k);
        json.append(k == 0 ? "" : ",")
            .append("{\"body\":\"")
            .append(text, 0, text.length() - 1)
            .append("\\n\"}");
      }
      return json.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private String record(long attempt, int k) {
      String id = recordId(attempt, k);
      return id + ".".repeat(Math.max(1, bench.recordSize - id.length() - 1)) + "\n";
    }
  }

  enum Kind {
    ACK,
    ENTRY_REFUSED,
    FAILED,
    UNKNOWN
  }

  record Outcome(Kind kind, String label, int retryAfterSeconds) {}

  static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> sendFollowing(URI uri) throws Exception {
    for (int hop = 0; ; hop++) {
      HttpResponse<String> r = get(uri);
      if (r.statusCode() != 307 || hop > 5) {
        return r;
      }
      uri = uri.resolve(r.headers().firstValue("Location").orElseThrow());
    }
  }

  static Map<String, Long> snapshot(Map<String, LongAdder> counters) {
    Map<String, Long> copy = new LinkedHashMap<>();
    counters.forEach((k, v) -> copy.put(k, v.sum()));
    return copy;
  }

  static String pct(List<Long> values, double q) {
    List<Long> sorted = values.stream().filter(x -> x >= 0).sorted().toList();
    if (sorted.isEmpty()) {
      return "-";
    }
    int rank = (int) Math.ceil(q * sorted.size()) - 1;
    return Long.toString(sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank))));
  }

  static String join(List<Long> values) {
    return values.isEmpty()
        ? "-"
        : String.join(",", values.stream().map(String::valueOf).toList());
  }

  static String required(Map<String, String> o, String key) {
    String v = o.get(key);
    if (v == null) {
      throw new IllegalArgumentException("--" + key + " is required");
    }
    return v;
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static void log(String format, Object... args) {
    System.err.println("failover-bench: " + String.format(format, args));
  }
}
