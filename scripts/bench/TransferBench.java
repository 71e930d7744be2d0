// The driver of scripts/bench-transfer.sh (issue #14, item 5): a single-file program (run with
// `java TransferBench.java ...`, no build) that runs three `pico serve` processes on one metadata
// database and one bucket, keeps appending to streams spread over them, and measures what moving
// streams between the nodes costs the clients.
//
//   java TransferBench.java --pico PATH --work DIR --meta-url URL --storage ID@URI
//       [--streams 32] [--rate 20] [--rounds 64] [--warmup-sec 5] [--drain-streams 1000]
//       [--record-size 256] [--give-up-sec 30] [--label NAME]
//
// The load: --streams streams, each with a client of its own (at most --rate appends/s, one in
// flight, one --record-size record per append). A client sends to one node's endpoint (stream i
// to node i mod 3 + 1) and follows 307s itself, so it knows which node answered. After anything
// but a 200 it pauses 100 ms and sends the record again as a new attempt (every attempt's record
// is unique, so nothing is ever written twice by a resend); an append not acknowledged within
// --give-up-sec failed for good. An error is any attempt not answered 200: a non-2xx answer after
// the redirects, or a transport error (refused connection, broken connection, timeout).
//
// Phases, on one cluster:
//  1. handoff: --rounds rounds, each transfers one stream (the streams in turn) to the next node
//     with POST /admin/transfer. The handoff time is what the stream's client sees: from just
//     before the POST is sent to the first acknowledgement of an append to that stream answered
//     by the target node (the target answers only once the stream is open there). The "ack gap"
//     beside it is the time between that acknowledgement and the previous one of the stream. The
//     first 3 rounds are each node's first handoff (cold code in a fresh JVM); "warm" figures
//     leave them out.
//  2. rolling: each node in turn is drained (POST /admin/drain, until /admin/nodes shows it with 0
//     streams and /admin/cluster no pending transfer), taken out of the clients' endpoints (as a
//     load balancer would), stopped with SIGTERM, started again, given its slot back and its
//     clients back; then POST /admin/rebalance. The load goes on throughout.
//  3. verify: the load stops and every stream is read back: every acknowledged record must be
//     there exactly once, in order; a refused attempt must be absent, one of unknown outcome
//     (broken connection, timeout) there at most once.
//  4. drain: node 1 is emptied, nodes 2 and 3 get 0 slots, --drain-streams streams are created
//     (all placed on node 1) and given one record each (so they are open on node 1); nodes 2 and
//     3 get their slot back, and node 1 is drained: the time from POST /admin/drain until
//     /admin/nodes shows node 1 with 0 streams and /admin/cluster no pending transfer. Then each
//     of those streams is read back: it must hold its one record.
//
// Self-contained on purpose, like FailoverBench.java: the JDK's source launcher runs one file on
// JDK 21, which the project supports; sharing a file between the drivers needs JDK 22 (JEP 458).
//
// stdout: one `result key=value ...` line for the script's tables; progress, one line per round
// included, goes to stderr.

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class TransferBench {
  static final int NODES = 3;
  static final Duration STEP = Duration.ofSeconds(180);

  static final HttpClient HTTP =
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

  /**
   * One transfer under load, as the stream's client saw it.
   *
   * @param handoffMillis from the POST to the first acknowledgement by the target; -1: none came
   * @param gapMillis from the acknowledgement before that one to it
   */
  record Handoff(
      int round,
      String stream,
      int from,
      int to,
      int entry,
      long handoffMillis,
      long gapMillis,
      SourceSide source) {}

  /**
   * The source's part of a handoff, from its log line {@code handed stream N off to node M in X
   * ms}, written once its completion was accepted by the log; times from the POST. Absent: -1.
   *
   * @param beganMillis until the source began (the transfer recorded, and seen by the source)
   * @param tookMillis the source's own work: appends stopped and awaited, the stream closed (what
   *     its WAL holds for it uploaded, the close in the log), the completion proposed
   * @param afterMillis from the completion accepted to the target's first acknowledgement (the
   *     target sees it, opens the stream, answers the parked or next append)
   */
  record SourceSide(long beganMillis, long tookMillis, long afterMillis) {
    static final SourceSide UNKNOWN = new SourceSide(-1, -1, -1);
  }

  static final Pattern HANDED_OFF =
      Pattern.compile(
          "(?m)^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .*handed stream (\\d+) off to node (\\d+) in (\\d+)"
              + " ms");

  /** What the clients were answered, by phase: labels such as "503 not_owner" with counts. */
  static final class Answers {
    final Map<String, Map<String, LongAdder>> byPhase = new ConcurrentHashMap<>();

    void add(String phase, String label) {
      byPhase
          .computeIfAbsent(phase, p -> new ConcurrentHashMap<>())
          .computeIfAbsent(label, l -> new LongAdder())
          .increment();
    }

    Map<String, Long> of(String phase) {
      Map<String, Long> copy = new TreeMap<>();
      byPhase.getOrDefault(phase, Map.of()).forEach((k, v) -> copy.put(k, v.sum()));
      return copy;
    }

    /** The errors only: every label but 200 and the redirects followed. */
    long errors(String phase) {
      return of(phase).entrySet().stream()
          .filter(e -> !e.getKey().equals("200") && !e.getKey().equals("307 followed"))
          .mapToLong(Map.Entry::getValue)
          .sum();
    }

    /** "label count, ..." of the errors, or "none". */
    String errorList(String phase) {
      List<String> parts = new ArrayList<>();
      of(phase)
          .forEach(
              (k, v) -> {
                if (!k.equals("200") && !k.equals("307 followed")) {
                  parts.add(k.replace(' ', '_') + ":" + v);
                }
              });
      return parts.isEmpty() ? "none" : String.join(",", parts);
    }
  }

  static final class Bench {
    final String pico;
    final Path work;
    final String metaUrl;
    final String storage;
    final int streams;
    final double rate;
    final int rounds;
    final int warmupSec;
    final int drainStreams;
    final int recordSize;
    final long giveUpNanos;
    final String label;
    final List<Node> nodes = new ArrayList<>();
    final List<Appender> appenders = new ArrayList<>();
    final Answers answers = new Answers();
    // Every acknowledged append's latency in the handoff phase, for the scale of the handoff.
    final java.util.Queue<Long> handoffPhaseAckMillis =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    // The nodes the clients may not send to: the rolling restart takes one out while it is down.
    final java.util.Set<Integer> outOfRotation = ConcurrentHashMap.newKeySet();
    volatile String phase = "warmup";

    Bench(Map<String, String> o) {
      pico = required(o, "pico");
      work = Path.of(required(o, "work"));
      metaUrl = required(o, "meta-url");
      storage = required(o, "storage");
      streams = Integer.parseInt(o.getOrDefault("streams", "32"));
      rate = Double.parseDouble(o.getOrDefault("rate", "20"));
      rounds = Integer.parseInt(o.getOrDefault("rounds", "64"));
      warmupSec = Integer.parseInt(o.getOrDefault("warmup-sec", "5"));
      drainStreams = Integer.parseInt(o.getOrDefault("drain-streams", "1000"));
      recordSize = Integer.parseInt(o.getOrDefault("record-size", "256"));
      giveUpNanos =
          Duration.ofSeconds(Long.parseLong(o.getOrDefault("give-up-sec", "30"))).toNanos();
      label = o.getOrDefault("label", "run");
    }

    Node node(int id) {
      return nodes.get(id - 1);
    }

    void run() throws Exception {
      Files.createDirectories(work);
      for (int id = 1; id <= NODES; id++) {
        nodes.add(new Node(this, id));
      }
      // The first node creates the schema; the others then start together.
      node(1).start();
      node(1).awaitReady();
      for (int id = 2; id <= NODES; id++) {
        node(id).start();
      }
      for (int id = 2; id <= NODES; id++) {
        node(id).awaitReady();
      }
      log("%d nodes ready", NODES);
      for (int i = 0; i < streams; i++) {
        Appender a = new Appender(this, String.format("/transfer/s%02d", i), i % NODES + 1);
        create(node(a.home), a.name);
        appenders.add(a);
      }
      appenders.forEach(Appender::start);
      awaitTrue(
          "every stream acknowledging", () -> appenders.stream().allMatch(a -> a.ackCount() > 0));
      Thread.sleep(warmupSec * 1000L);

      phase = "handoff";
      List<Handoff> handoffs = handoffs();
      phase = "rolling";
      String rolling = rollingRestart();
      phase = "stopped";
      long failedForGood = 0;
      for (Appender a : appenders) {
        a.stop();
      }
      for (Appender a : appenders) {
        a.join();
        failedForGood += a.failedForGood;
      }
      String verified = verify();
      String drained = drainMany();

      List<Long> times = handoffs.stream().map(Handoff::handoffMillis).toList();
      // The first NODES rounds are each node's first handoff, as source and as target: code that
      // has not run in that JVM yet.
      List<Long> warm =
          handoffs.stream().filter(h -> h.round() > NODES).map(Handoff::handoffMillis).toList();
      List<Long> gaps = handoffs.stream().map(Handoff::gapMillis).toList();
      List<Long> began = handoffs.stream().map(h -> h.source().beganMillis()).toList();
      List<Long> took = handoffs.stream().map(h -> h.source().tookMillis()).toList();
      List<Long> after = handoffs.stream().map(h -> h.source().afterMillis()).toList();
      System.out.printf(
          "result label=%s rounds=%d handoff_p50_ms=%s handoff_p99_ms=%s handoff_max_ms=%s"
              + " handoff_missing=%d warm_p50_ms=%s warm_p99_ms=%s warm_max_ms=%s"
              + " gap_p50_ms=%s gap_p99_ms=%s gap_max_ms=%s"
              + " append_p50_ms=%s append_p99_ms=%s"
              + " source_began_p50_ms=%s source_took_p50_ms=%s after_p50_ms=%s"
              + " source_began_max_ms=%s source_took_max_ms=%s after_max_ms=%s"
              + " handoff_requests=%d handoff_errors=%d handoff_error_kinds=%s"
              + " rolling_requests=%d rolling_errors=%d rolling_error_kinds=%s failed_for_good=%d"
              + " %s %s %s%n",
          label,
          handoffs.size(),
          pct(times, 0.50),
          pct(times, 0.99),
          pct(times, 1.0),
          times.stream().filter(t -> t < 0).count(),
          pct(warm, 0.50),
          pct(warm, 0.99),
          pct(warm, 1.0),
          pct(gaps, 0.50),
          pct(gaps, 0.99),
          pct(gaps, 1.0),
          pct(List.copyOf(handoffPhaseAckMillis), 0.5),
          pct(List.copyOf(handoffPhaseAckMillis), 0.99),
          pct(began, 0.5),
          pct(took, 0.5),
          pct(after, 0.5),
          pct(began, 1.0),
          pct(took, 1.0),
          pct(after, 1.0),
          requests("handoff"),
          answers.errors("handoff"),
          answers.errorList("handoff"),
          requests("rolling"),
          answers.errors("rolling"),
          answers.errorList("rolling"),
          failedForGood,
          rolling,
          verified,
          drained);
    }

    long requests(String phase) {
      return answers.of(phase).entrySet().stream()
          .filter(e -> !e.getKey().equals("307 followed"))
          .mapToLong(Map.Entry::getValue)
          .sum();
    }

    /** Phase 1: one transfer per round, the streams in turn, each to the next node. */
    List<Handoff> handoffs() throws Exception {
      List<Handoff> done = new ArrayList<>();
      for (int r = 1; r <= rounds; r++) {
        Appender a = appenders.get((r - 1) % appenders.size());
        StreamInfo before = streamInfo(a.name);
        int from = before.owner;
        int to = from % NODES + 1;
        int admin = to % NODES + 1; // the third node: any node's admin listener will do
        a.watch(to);
        java.time.LocalTime postedTime = java.time.LocalTime.now();
        long postedAt = System.nanoTime();
        HttpResponse<String> answer =
            post(
                node(admin).admin().resolve("/admin/transfer"),
                "{\"stream\": \"" + a.name + "\", \"toNode\": " + to + "}");
        if (answer.statusCode() != 202) {
          log(
              "round %d: transfer of %s (%s) answered %d %s",
              r, a.name, before, answer.statusCode(), answer.body());
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline
            && (a.targetAckedAt() == 0 || streamInfo(a.name).pendingTo != 0)) {
          Thread.sleep(20);
        }
        long acked = a.targetAckedAt();
        long handoff = acked == 0 ? -1 : (acked - postedAt) / 1_000_000;
        long gap = acked == 0 ? -1 : a.gapNanos() / 1_000_000;
        SourceSide side = sourceSide(node(from), before.streamId, to, postedTime, handoff);
        Handoff h = new Handoff(r, a.name, from, to, a.entry(), handoff, gap, side);
        done.add(h);
        log(
            "round %d at %s: %s from node %d to %d (client enters at node %d): handoff %d ms, ack"
                + " gap %d ms; the source began at %d ms and took %d ms, the target answered %d ms"
                + " later",
            r,
            postedTime,
            a.name,
            from,
            to,
            h.entry(),
            handoff,
            gap,
            side.beganMillis(),
            side.tookMillis(),
            side.afterMillis());
        Thread.sleep(300);
      }
      log("handoff rounds done; the clients were answered %s", answers.of("handoff"));
      return done;
    }

    /** The source's log line for this handoff, placed after the POST by its time of day. */
    SourceSide sourceSide(
        Node source, long streamId, int to, java.time.LocalTime posted, long handoffMillis)
        throws IOException {
      String text = Files.readString(source.log, StandardCharsets.ISO_8859_1);
      Matcher m = HANDED_OFF.matcher(text);
      long postedMillis = posted.toNanoOfDay() / 1_000_000;
      SourceSide found = SourceSide.UNKNOWN;
      while (m.find()) {
        if (Long.parseLong(m.group(2)) != streamId || Integer.parseInt(m.group(3)) != to) {
          continue;
        }
        long line = java.time.LocalTime.parse(m.group(1)).toNanoOfDay() / 1_000_000 - postedMillis;
        line = line < -43_200_000L ? line + 86_400_000L : line; // past midnight
        if (line < 0) {
          continue; // an earlier transfer of the stream to the same node
        }
        long took = Long.parseLong(m.group(4));
        found = new SourceSide(line - took, took, handoffMillis < 0 ? -1 : handoffMillis - line);
      }
      return found;
    }

    /** Phase 2: drain, SIGTERM, restart, slot back, for each node; then a rebalance. */
    String rollingRestart() throws Exception {
      List<String> drainMillis = new ArrayList<>();
      List<String> downMillis = new ArrayList<>();
      for (int id = 1; id <= NODES; id++) {
        Node admin = node(id % NODES + 1);
        long started = System.nanoTime();
        HttpResponse<String> answer =
            post(admin.admin().resolve("/admin/drain"), "{\"node\": " + id + "}");
        int moves = count(answer.body(), "\"toNode\"");
        final int drained = id;
        awaitTrue(
            "node " + id + " drained",
            () -> nodeInfo(admin, drained).placed == 0 && pendingTransfers(admin) == 0);
        long drainedAt = System.nanoTime();
        outOfRotation.add(id);
        node(id).stop();
        node(id).start();
        node(id).awaitReady();
        post(admin.admin().resolve("/admin/nodes/" + id), "{\"slots\": 1}");
        outOfRotation.remove(id);
        long back = System.nanoTime();
        drainMillis.add(Long.toString((drainedAt - started) / 1_000_000));
        downMillis.add(Long.toString((back - drainedAt) / 1_000_000));
        log(
            "rolling: node %d drained (%d moves, answer %d) in %d ms, stopped, restarted and given"
                + " its slot back in %d ms; the clients were answered %s so far",
            id,
            moves,
            answer.statusCode(),
            (drainedAt - started) / 1_000_000,
            (back - drainedAt) / 1_000_000,
            answers.of("rolling"));
      }
      long started = System.nanoTime();
      HttpResponse<String> answer = post(node(1).admin().resolve("/admin/rebalance"), "{}");
      int moves = count(answer.body(), "\"toNode\"");
      awaitTrue("the rebalance done", () -> pendingTransfers(node(1)) == 0);
      long rebalanceMillis = (System.nanoTime() - started) / 1_000_000;
      log("rolling: rebalance moved %d streams in %d ms", moves, rebalanceMillis);
      Thread.sleep(2000); // the load goes on a little after the last move
      return String.format(
          "rolling_drain_ms=%s rolling_down_ms=%s rebalance_moves=%d rebalance_ms=%d",
          String.join(",", drainMillis), String.join(",", downMillis), moves, rebalanceMillis);
    }

    /** Phase 3: every stream read back, held to what its client was told. */
    String verify() throws Exception {
      long acked = 0;
      long lost = 0;
      long duplicated = 0;
      long outOfOrder = 0;
      long refusedPresent = 0;
      long unknownPresent = 0;
      long unknownAbsent = 0;
      List<String> examples = new ArrayList<>();
      for (Appender a : appenders) {
        Map<String, Integer> count = new HashMap<>();
        Map<String, Integer> position = new HashMap<>();
        List<String> lines = readAll(a.name);
        for (int i = 0; i < lines.size(); i++) {
          String id = recordIdOf(lines.get(i));
          count.merge(id, 1, Integer::sum);
          position.putIfAbsent(id, i);
        }
        for (Map.Entry<String, Integer> e : count.entrySet()) {
          if (e.getValue() > 1) {
            duplicated += e.getValue() - 1;
            example(examples, "duplicated " + a.name + " " + e.getKey() + " x" + e.getValue());
          }
        }
        int last = -1;
        for (String id : a.acked) {
          acked++;
          Integer at = position.get(id);
          if (at == null) {
            lost++;
            example(examples, "lost " + a.name + " " + id);
          } else {
            outOfOrder += at < last ? 1 : 0;
            last = at;
          }
        }
        for (String id : a.refused) {
          if (position.containsKey(id)) {
            refusedPresent++;
            example(examples, "refused but written " + a.name + " " + id);
          }
        }
        for (String id : a.unknown) {
          if (position.containsKey(id)) {
            unknownPresent++;
          } else {
            unknownAbsent++;
          }
        }
      }
      log(
          "verify: %d acknowledged records in %d streams: lost %d, duplicated %d, out of order %d;"
              + " refused attempts written anyway %d; attempts of unknown outcome %d present, %d"
              + " absent%s",
          acked,
          appenders.size(),
          lost,
          duplicated,
          outOfOrder,
          refusedPresent,
          unknownPresent,
          unknownAbsent,
          examples.isEmpty() ? "" : ": " + examples);
      return String.format(
          "acked=%d lost=%d duplicated=%d out_of_order=%d refused_written=%d unknown_present=%d"
              + " unknown_absent=%d",
          acked, lost, duplicated, outOfOrder, refusedPresent, unknownPresent, unknownAbsent);
    }

    /** Phase 4: --drain-streams open streams on node 1, drained off it; the time that takes. */
    String drainMany() throws Exception {
      if (drainStreams <= 0) {
        return "drain_streams=0";
      }
      Node one = node(1);
      Node admin = node(2);
      // Node 1 empty first, so that what the drain moves is exactly the streams made below.
      post(admin.admin().resolve("/admin/drain"), "{\"node\": 1}");
      awaitTrue(
          "node 1 emptied", () -> nodeInfo(admin, 1).placed == 0 && pendingTransfers(admin) == 0);
      post(admin.admin().resolve("/admin/nodes/1"), "{\"slots\": 1}");
      post(admin.admin().resolve("/admin/nodes/2"), "{\"slots\": 0}");
      post(admin.admin().resolve("/admin/nodes/3"), "{\"slots\": 0}");
      List<String> names = new ArrayList<>();
      for (int i = 0; i < drainStreams; i++) {
        names.add(String.format("/drain/s%05d", i));
      }
      long started = System.nanoTime();
      parallel(names, name -> create(one, name));
      parallel(names, name -> appendOnce(one, name));
      long made = System.nanoTime();
      NodeInfo before = nodeInfo(admin, 1);
      log(
          "drain: %d streams created and appended to in %d ms; node 1 holds %d, %d open",
          drainStreams, (made - started) / 1_000_000, before.placed, before.open);
      post(admin.admin().resolve("/admin/nodes/2"), "{\"slots\": 1}");
      post(admin.admin().resolve("/admin/nodes/3"), "{\"slots\": 1}");

      long drainStarted = System.nanoTime();
      HttpResponse<String> answer = post(admin.admin().resolve("/admin/drain"), "{\"node\": 1}");
      long answeredAt = System.nanoTime();
      int pending = count(answer.body(), "\"state\":\"pending\"");
      int completed = count(answer.body(), "\"state\":\"completed\"");
      int refused = count(answer.body(), "\"reason\"");
      long firstEmptyAt = 0;
      long deadline = System.nanoTime() + STEP.toNanos() * 3;
      long lastLog = System.nanoTime();
      while (System.nanoTime() < deadline) {
        NodeInfo now = nodeInfo(admin, 1);
        int transfers = pendingTransfers(admin);
        if (now.placed == 0 && transfers == 0) {
          firstEmptyAt = System.nanoTime();
          break;
        }
        if (System.nanoTime() - lastLog > 5_000_000_000L) {
          log(
              "drain: node 1 still holds %d streams (%d open), %d transfers pending",
              now.placed, now.open, transfers);
          lastLog = System.nanoTime();
        }
        Thread.sleep(100);
      }
      long drainMillis = firstEmptyAt == 0 ? -1 : (firstEmptyAt - drainStarted) / 1_000_000;
      NodeInfo two = nodeInfo(admin, 2);
      NodeInfo three = nodeInfo(admin, 3);
      log(
          "drain: answered in %d ms (%d pending, %d completed, %d refused); node 1 empty after %d"
              + " ms; node 2 holds %d (%d open), node 3 %d (%d open)",
          (answeredAt - drainStarted) / 1_000_000,
          pending,
          completed,
          refused,
          drainMillis,
          two.placed,
          two.open,
          three.placed,
          three.open);
      AtomicLong wrong = new AtomicLong();
      long readStarted = System.nanoTime();
      parallel(
          names,
          name -> {
            if (readAll(name).size() != 1) {
              wrong.incrementAndGet();
            }
          });
      log(
          "drain: every moved stream read back in %d ms, %d without exactly its one record",
          (System.nanoTime() - readStarted) / 1_000_000, wrong.get());
      return String.format(
          "drain_streams=%d drain_open_before=%d drain_answer_ms=%d drain_pending=%d"
              + " drain_completed=%d drain_refused=%d drain_ms=%d drain_open_after=%d"
              + " drain_read_wrong=%d",
          drainStreams,
          before.open,
          (answeredAt - drainStarted) / 1_000_000,
          pending,
          completed,
          refused,
          drainMillis,
          two.open + three.open,
          wrong.get());
    }

    void appendOnce(Node node, String name) throws Exception {
      URI uri = node.endpoint().resolve(name);
      for (int attempt = 0; ; attempt++) {
        HttpResponse<String> r =
            HTTP.send(
                HttpRequest.newBuilder(uri)
                    .header("Content-Type", "text/plain")
                    .POST(HttpRequest.BodyPublishers.ofString("one\n"))
                    .timeout(Duration.ofSeconds(60))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 307) {
          uri = uri.resolve(r.headers().firstValue("Location").orElseThrow());
          continue;
        }
        if (r.statusCode() != 200 || attempt > 3) {
          throw new IllegalStateException(
              "append to " + name + ": " + r.statusCode() + " " + r.body());
        }
        return;
      }
    }

    /** Every record of a stream, as lines (each record ends with a newline). */
    List<String> readAll(String name) throws Exception {
      List<String> lines = new ArrayList<>();
      long seq = 0;
      for (int attempt = 0; ; ) {
        URI uri =
            node(1)
                .endpoint()
                .resolve(name + "?seq=" + seq + "&format=raw&count=10000&bytes=16777216");
        HttpResponse<String> response = getFollowing(uri);
        if (response.statusCode() != 200) {
          if (++attempt > 100) {
            throw new IllegalStateException(
                "read " + name + " answered " + response.statusCode() + ": " + response.body());
          }
          Thread.sleep(200);
          continue;
        }
        String body = response.body();
        for (String line : body.split("\n")) {
          if (!line.isEmpty()) {
            lines.add(line);
          }
        }
        seq = Long.parseLong(response.headers().firstValue("Pico-Next-Seq").orElseThrow());
        if (response.headers().firstValue("Pico-Up-To-Date").orElse("").equals("true")) {
          return lines;
        }
      }
    }

    record StreamInfo(long streamId, int owner, boolean open, int pendingTo) {}

    StreamInfo streamInfo(String name) throws Exception {
      for (int id = 1; ; id = id % NODES + 1) {
        if (outOfRotation.contains(id)) {
          continue;
        }
        String body = get(node(id).admin().resolve("/admin/streams" + name)).body();
        return new StreamInfo(
            intField(body, "streamId"),
            intField(body, "owner"),
            body.contains("\"state\":\"open\""),
            body.contains("\"pendingTransferTo\":null") ? 0 : intField(body, "pendingTransferTo"));
      }
    }

    record NodeInfo(int placed, int open) {}

    NodeInfo nodeInfo(Node admin, int id) throws Exception {
      String body = get(admin.admin().resolve("/admin/nodes")).body();
      for (String node : body.split("\\{")) {
        if (node.contains("\"nodeId\":" + id + ",")) {
          return new NodeInfo(intField(node, "streams"), intField(node, "openStreams"));
        }
      }
      throw new IllegalStateException("node " + id + " is not in /admin/nodes: " + body);
    }

    int pendingTransfers(Node admin) throws Exception {
      String body = get(admin.admin().resolve("/admin/cluster")).body();
      return count(body.substring(body.indexOf("\"pendingTransfers\"")), "\"toNode\"");
    }

    void create(Node node, String name) throws Exception {
      HttpResponse<String> r =
          HTTP.send(
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

    interface Task {
      void run(String name) throws Exception;
    }

    /** Runs the task for every name, 32 at a time; the first failure is thrown. */
    static void parallel(List<String> names, Task task) throws Exception {
      try (ExecutorService pool = Executors.newFixedThreadPool(32, Thread.ofVirtual().factory())) {
        List<Future<?>> futures = new ArrayList<>();
        for (String name : names) {
          futures.add(
              pool.submit(
                  () -> {
                    task.run(name);
                    return null;
                  }));
        }
        for (Future<?> f : futures) {
          f.get();
        }
      }
    }

    void awaitTrue(String what, Check check) throws Exception {
      long deadline = System.nanoTime() + STEP.toNanos();
      while (System.nanoTime() < deadline) {
        if (check.holds()) {
          return;
        }
        Thread.sleep(100);
      }
      throw new IllegalStateException(what + ": not after " + STEP.toSeconds() + " s");
    }

    interface Check {
      boolean holds() throws Exception;
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

    /** The nodes' own defaults otherwise: what a deployment runs. */
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
              "127.0.0.1:" + adminPort);
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.environment().put("PICO_NO_BUILD", "1");
      // A time of day on every log line, to place a node's part of a handoff in the round.
      builder
          .environment()
          .put(
              "PICO_JAVA_OPTS",
              (System.getenv().getOrDefault("PICO_JAVA_OPTS", "")
                      + " -Dorg.slf4j.simpleLogger.showDateTime=true"
                      + " -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS"
                      // The source's "handed stream N off to node M in X ms" line.
                      + " -Dorg.slf4j.simpleLogger.log.io.picomq.server.metadata.Transfers=debug"
                      // Each side's steps, in the nodes' logs only: the source's "appends durable
                      // in X ms, closed ... in Y ms" and its close's "commit offered after X ms,
                      // closed Y ms later", the target's "loaded NAME: X ms waiting for a
                      // transfer here, Y ms opening, Z ms reading the tail".
                      + " -Dorg.slf4j.simpleLogger.log.io.picomq.server.service.Handoffs=debug"
                      + " -Dorg.slf4j.simpleLogger.log.io.picomq.s3stream.core.stream.OpenStream=debug"
                      // The upload's split of the close's first part: "block N (B bytes):
                      // confirmed after X ms, written Y ms later, commit offered Z ms later".
                      + " -Dorg.slf4j.simpleLogger.log.io.picomq.s3stream.core.upload.UploadPipeline=debug"
                      + " -Dorg.slf4j.simpleLogger.log.io.picomq.server.service.LoadedStreams=debug")
                  .strip());
      process = builder.start();
    }

    void awaitReady() throws Exception {
      long deadline = System.nanoTime() + STEP.toNanos();
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IllegalStateException("node " + id + " exited; see " + log);
        }
        try {
          if (get(admin().resolve("/ready")).statusCode() == 200) {
            return;
          }
        } catch (IOException notYet) {
          // not listening yet
        }
        Thread.sleep(100);
      }
      throw new IllegalStateException(
          "node " + id + " not ready after " + STEP.toSeconds() + " s; see " + log);
    }

    /** SIGTERM (bin/pico execs the JVM, so the process is the JVM), then SIGKILL after 60 s. */
    void stop() {
      if (process == null || !process.isAlive()) {
        return;
      }
      process.destroy();
      try {
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
          log("node %d did not stop within 60 s of SIGTERM; SIGKILL", id);
          process.destroyForcibly().waitFor();
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
    final int home;
    Thread thread;
    volatile boolean stopped;
    // Owned by the client's thread until join(): the record ids by outcome, in sending order.
    final List<String> acked = new ArrayList<>();
    final List<String> refused = new ArrayList<>();
    final List<String> unknown = new ArrayList<>();
    long failedForGood;
    // Read by the bench's thread while the client runs.
    volatile int lastEntry;
    volatile long ackCount;
    volatile long lastAckAt;
    volatile int watchedTarget;
    volatile long targetAckedAt;
    volatile long gapNanos;

    Appender(Bench bench, String name, int home) {
      this.bench = bench;
      this.name = name;
      this.home = home;
      this.lastEntry = home;
    }

    long ackCount() {
      return ackCount;
    }

    int entry() {
      return lastEntry;
    }

    /** Starts watching for the first acknowledgement answered by node {@code target}. */
    void watch(int target) {
      targetAckedAt = 0;
      gapNanos = 0;
      watchedTarget = target;
    }

    long targetAckedAt() {
      return targetAckedAt;
    }

    long gapNanos() {
      return gapNanos;
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
      long attempts = 0;
      for (long n = 0; !stopped; n++) {
        long firstSent = System.nanoTime();
        while (!stopped) {
          String id = "n" + n + "a" + attempts++;
          long sentAt = System.nanoTime();
          Outcome outcome = send(id);
          long now = System.nanoTime();
          bench.answers.add(bench.phase, outcome.label);
          if (outcome.kind == Kind.ACK) {
            acked.add(id);
            if (bench.phase.equals("handoff")) {
              bench.handoffPhaseAckMillis.add((now - sentAt) / 1_000_000);
            }
            if (outcome.node == watchedTarget && targetAckedAt == 0) {
              gapNanos = now - lastAckAt;
              targetAckedAt = now;
            }
            lastAckAt = now;
            ackCount++;
            pause(minGapNanos - (now - sentAt));
            break;
          }
          (outcome.kind == Kind.REFUSED ? refused : unknown).add(id);
          if (now - firstSent > bench.giveUpNanos) {
            failedForGood++;
            log(
                "%s: append n%d failed for good after %d s: last %s",
                name, n, (now - firstSent) / 1_000_000_000L, outcome.label);
            break;
          }
          pause(100_000_000L);
        }
      }
    }

    private static void pause(long nanos) {
      if (nanos > 0) {
        try {
          Thread.sleep(Duration.ofNanos(nanos));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    /** The client's node: its own, or the next one the clients may send to. */
    private int entryNode() {
      for (int k = 0; k < NODES; k++) {
        int id = (home - 1 + k) % NODES + 1;
        if (!bench.outOfRotation.contains(id)) {
          return id;
        }
      }
      return home;
    }

    private Outcome send(String id) {
      byte[] body = record(id);
      int entry = entryNode();
      lastEntry = entry;
      URI uri = bench.node(entry).endpoint().resolve(name);
      for (int hop = 0; ; hop++) {
        HttpResponse<String> r;
        try {
          r = HTTP.send(post(uri, body), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
          return new Outcome(
              Kind.REFUSED, hop == 0 ? "connection refused" : "307 to a refused node", 0);
        } catch (HttpTimeoutException e) {
          return new Outcome(Kind.UNKNOWN, "timeout", 0);
        } catch (IOException e) {
          return new Outcome(Kind.UNKNOWN, "connection broken", 0);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return new Outcome(Kind.UNKNOWN, "interrupted", 0);
        }
        if (r.statusCode() == 307 && hop < 5) {
          bench.answers.add(bench.phase, "307 followed");
          uri = uri.resolve(r.headers().firstValue("Location").orElseThrow());
          continue;
        }
        if (r.statusCode() == 200) {
          return new Outcome(Kind.ACK, "200", nodeAt(uri));
        }
        Matcher code = Pattern.compile("\"error\"\\s*:\\s*\"([a-z_]+)\"").matcher(r.body());
        String label = r.statusCode() + (code.find() ? " " + code.group(1) : "");
        boolean mayHaveCompleted = r.body().contains("\"may_have_completed\":true");
        return new Outcome(mayHaveCompleted ? Kind.UNKNOWN : Kind.REFUSED, label, nodeAt(uri));
      }
    }

    private int nodeAt(URI uri) {
      for (Node n : bench.nodes) {
        if (n.port == uri.getPort()) {
          return n.id;
        }
      }
      return 0;
    }

    private static HttpRequest post(URI uri, byte[] body) {
      return HttpRequest.newBuilder(uri)
          .header("Content-Type", "text/plain")
          .POST(HttpRequest.BodyPublishers.ofByteArray(body))
          .timeout(Duration.ofSeconds(30))
          .build();
    }

    /** At least record-size bytes: the id, dots, a newline (the raw read splits on it). */
    private byte[] record(String id) {
      String text = id + ".".repeat(Math.max(1, bench.recordSize - id.length() - 1)) + "\n";
      return text.getBytes(StandardCharsets.UTF_8);
    }
  }

  enum Kind {
    ACK,
    REFUSED, // answered, and nothing was written: the record must not be in the stream
    UNKNOWN // the connection broke, the request timed out, or the answer says it may have completed
  }

  record Outcome(Kind kind, String label, int node) {}

  static String recordIdOf(String line) {
    int dot = line.indexOf('.');
    return dot < 0 ? line : line.substring(0, dot);
  }

  static void example(List<String> examples, String text) {
    if (examples.size() < 5) {
      examples.add(text);
    }
  }

  static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> getFollowing(URI uri) throws Exception {
    for (int hop = 0; ; hop++) {
      HttpResponse<String> r = get(uri);
      if (r.statusCode() != 307 || hop > 5) {
        return r;
      }
      uri = uri.resolve(r.headers().firstValue("Location").orElseThrow());
    }
  }

  static HttpResponse<String> post(URI uri, String json) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(uri)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .timeout(Duration.ofSeconds(60))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static int intField(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\"\\s*:\\s*(-?\\d+)").matcher(json);
    if (!m.find()) {
      throw new IllegalStateException("no integer " + key + " in " + json);
    }
    return Integer.parseInt(m.group(1));
  }

  static int count(String text, String needle) {
    int n = 0;
    for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      n++;
    }
    return n;
  }

  static String pct(List<Long> values, double q) {
    List<Long> sorted = values.stream().filter(x -> x >= 0).sorted().toList();
    if (sorted.isEmpty()) {
      return "-";
    }
    int rank = (int) Math.ceil(q * sorted.size()) - 1;
    return Long.toString(sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank))));
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
    System.err.println("transfer-bench: " + String.format(format, args));
  }
}
