package io.picomq.e2e.cluster;

import io.picomq.client.AppendResult;
import io.picomq.client.Consumer;
import io.picomq.client.ConsumerOptions;
import io.picomq.client.CreateOptions;
import io.picomq.client.PicoClient;
import io.picomq.client.PicoException;
import io.picomq.client.ProducerOptions;
import io.picomq.client.ProducerSession;
import io.picomq.client.ReadRecord;
import io.picomq.client.ReadRequest;
import io.picomq.client.ReadResult;
import io.picomq.client.Record;
import java.net.URI;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The load of a chaos run: on each of {@code streams} streams an SDK producer session and a tailing
 * SDK consumer, through the nodes' endpoints in turn (a stream is created through one node, written
 * through the next, followed through the third, so most requests are redirected), each recording
 * what it was told, so that {@link #verify} can hold the cluster to exactly-once:
 *
 * <ul>
 *   <li>a producer's record {@code n} carries {@code (stream, producer, n)}; it is acknowledged
 *       when its session's future completes, and must then be in the stream exactly once, in the
 *       producer's order, at the seq it was acknowledged at; one never acknowledged may be there at
 *       most once;
 *   <li>a consumer must see seqs 0, 1, 2, ... with no gap or repeat, and exactly the records the
 *       stream holds at the end.
 * </ul>
 *
 * <p>A session survives a node's fault by itself (it resends after transport failures and 503s,
 * with the same stamp); one that fails anyway is a problem, and the producer goes on with the next
 * epoch through the next endpoint so that the run still checks the rest. What breaks an expectation
 * is collected in {@link #problems} rather than thrown on a load thread.
 *
 * <p>Threading: each producer and consumer runs on a platform thread of its own; the test thread
 * calls the rest.
 */
final class ChaosLoad implements AutoCloseable {

  private static final Pattern BODY = Pattern.compile("s(\\d+) p(\\d+) n(\\d+)");
  private static final Duration PRODUCER_PACE = Duration.ofMillis(100);

  /** What a producer wrote: its stream, itself, and which of its records this is. */
  record Written(int stream, int producer, long n) {
    String body() {
      return String.format(Locale.ROOT, "s%02d p%d n%08d", stream, producer, n);
    }

    static Written parse(String body) {
      Matcher matcher = BODY.matcher(body);
      if (!matcher.matches()) {
        throw new IllegalArgumentException("not a chaos record: " + body);
      }
      return new Written(
          Integer.parseInt(matcher.group(1)),
          Integer.parseInt(matcher.group(2)),
          Long.parseLong(matcher.group(3)));
    }
  }

  /**
   * Which endpoints (indexes into the list {@link #start} is given) a stream is created, written
   * and followed through.
   */
  record Route(int create, int produce, int follow) {

    /** Each stream through the nodes in turn: created through one, written through the next, ... */
    static List<Route> rotating(int streams, int nodes) {
      List<Route> routes = new ArrayList<>();
      for (int i = 0; i < streams; i++) {
        routes.add(new Route(i % nodes, (i + 1) % nodes, (i + 2) % nodes));
      }
      return List.copyOf(routes);
    }
  }

  /** An acknowledgement: the seq it gave (-1 for a duplicate's) and when it came. */
  record Ack(long seq, long atNanos) {}

  /** What the checks found, for the report. */
  record Totals(
      long acknowledged,
      long unacknowledgedPresent,
      long unacknowledgedAbsent,
      long consumed,
      int sessionsReplaced,
      Duration longestAckGap,
      String longestAckGapStream,
      Map<String, Integer> retries) {}

  private final List<PicoClient> clients;
  private final List<Producer> producers = new ArrayList<>();
  private final List<Follower> followers = new ArrayList<>();

  /** What the checks at the end found: listed first, as a failing consumer may repeat a lot. */
  private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();

  /** What went wrong while the load ran, each with its time of day (UTC, as the nodes log it). */
  private final ConcurrentLinkedQueue<String> problemsDuringLoad = new ConcurrentLinkedQueue<>();

  private final ConcurrentHashMap<String, Integer> retries = new ConcurrentHashMap<>();
  private final AtomicInteger sessionsReplaced = new AtomicInteger();
  private volatile boolean stopping;

  private ChaosLoad(List<URI> endpoints) {
    List<PicoClient> made = new ArrayList<>();
    for (URI endpoint : endpoints) {
      made.add(
          PicoClient.builder()
              .endpoint(endpoint)
              // A stopped node answers nothing: give up on a request soon and resend it.
              .requestTimeout(Duration.ofSeconds(5))
              .connectTimeout(Duration.ofSeconds(2))
              .retryUnavailable(Duration.ofMinutes(2))
              .retryListener(
                  (failure, pause) ->
                      retries.merge(failure.status() + " " + failure.errorCode(), 1, Integer::sum))
              .build());
    }
    this.clients = List.copyOf(made);
  }

  /** The stream {@code index} of a run. */
  static String stream(int index) {
    return String.format(Locale.ROOT, "/chaos/s%02d", index);
  }

  /** Creates a stream per route and starts writing and following each. */
  static ChaosLoad start(List<URI> endpoints, List<Route> routes) {
    ChaosLoad load = new ChaosLoad(endpoints);
    for (int i = 0; i < routes.size(); i++) {
      load.clients
          .get(routes.get(i).create())
          .create(stream(i), CreateOptions.builder().contentType("text/plain").build());
    }
    for (int i = 0; i < routes.size(); i++) {
      Producer producer = load.new Producer(i, 0, routes.get(i).produce());
      load.producers.add(producer);
      Thread.ofPlatform().daemon().name("chaos-producer-" + i).start(producer::run);
      Follower follower = load.new Follower(i, routes.get(i).follow());
      load.followers.add(follower);
      Thread.ofPlatform().daemon().name("chaos-consumer-" + i).start(follower::run);
    }
    return load;
  }

  /** How many records were acknowledged so far. */
  long acknowledged() {
    return producers.stream().mapToLong(p -> p.acked.size()).sum();
  }

  /** How many records each stream's producer had acknowledged, e.g. to see that all advance. */
  List<Long> acknowledgedPerStream() {
    return producers.stream().map(p -> (long) p.acked.size()).toList();
  }

  /** The acknowledgements of stream {@code index}'s producer that came after {@code nanos}. */
  List<Ack> acknowledgedAfter(int index, long nanos) {
    return producers.get(index).acked.values().stream()
        .filter(ack -> ack.atNanos() - nanos > 0)
        .toList();
  }

  /** What broke an expectation so far. */
  List<String> problems() {
    List<String> all = new ArrayList<>(problems);
    all.addAll(problemsDuringLoad);
    return List.copyOf(all);
  }

  private void duringLoad(String problem) {
    problemsDuringLoad.add(LocalTime.now(ZoneOffset.UTC) + " " + problem);
  }

  /**
   * Stops writing: each producer flushes its session, so that every record sent is acknowledged or
   * failed. Consumers go on following.
   */
  void stopProducing() throws InterruptedException {
    stopping = true;
    for (Producer producer : producers) {
      producer.done.join();
      if (producer.done.isCompletedExceptionally()) {
        problems.add("producer of " + stream(producer.stream) + " did not finish");
      }
    }
  }

  /**
   * Reads every stream from seq 0 through {@code reader} and checks it against what the producers
   * were told; then waits (up to {@code catchUp}) for each consumer to reach the tail and checks
   * what it saw. Adds what it finds wrong to {@link #problems}.
   */
  Totals verify(PicoClient reader, Duration catchUp) {
    long unackedPresent = 0;
    long unackedAbsent = 0;
    long consumed = 0;
    for (int i = 0; i < producers.size(); i++) {
      Producer producer = producers.get(i);
      List<ReadRecord> records = readAll(reader, stream(i));
      long previous = -1;
      Set<Long> present = new HashSet<>();
      for (int at = 0; at < records.size(); at++) {
        ReadRecord record = records.get(at);
        if (record.seq() != at) {
          problems.add(stream(i) + ": the record at position " + at + " has seq " + record.seq());
        }
        Written written = Written.parse(record.bodyAsString());
        if (written.stream() != i || written.producer() != producer.producer) {
          problems.add(stream(i) + " seq " + record.seq() + " holds " + written);
          continue;
        }
        if (written.n() <= previous) {
          problems.add(
              stream(i)
                  + " seq "
                  + record.seq()
                  + ": n "
                  + written.n()
                  + " after n "
                  + previous
                  + " (a duplicate or out of order)");
        }
        previous = written.n();
        present.add(written.n());
      }
      for (Map.Entry<Long, Ack> ack : producer.acked.entrySet()) {
        long n = ack.getKey();
        long seq = ack.getValue().seq();
        if (!present.contains(n)) {
          problems.add(stream(i) + ": acknowledged n " + n + " (seq " + seq + ") is missing");
        } else if (seq >= 0
            && (seq >= records.size()
                || !records.get((int) seq).bodyAsString().equals(producer.body(n)))) {
          problems.add(
              stream(i)
                  + ": acknowledged n "
                  + n
                  + " at seq "
                  + seq
                  + " but that seq holds "
                  + (seq < records.size() ? records.get((int) seq).bodyAsString() : "nothing"));
        }
      }
      for (long n = 0; n < producer.sent.get(); n++) {
        if (!producer.acked.containsKey(n)) {
          if (present.contains(n)) {
            unackedPresent++;
          } else {
            unackedAbsent++;
          }
        }
      }
      Follower follower = followers.get(i);
      if (!follower.awaitPosition(records.size(), catchUp)) {
        problems.add(
            stream(i)
                + ": the consumer is at seq "
                + follower.next
                + " after "
                + catchUp
                + ", the stream ends at "
                + records.size());
      }
      follower.stop();
      List<ReadRecord> seen = List.copyOf(follower.seen);
      consumed += seen.size();
      for (int at = 0; at < Math.min(seen.size(), records.size()); at++) {
        if (seen.get(at).seq() != records.get(at).seq()
            || !seen.get(at).bodyAsString().equals(records.get(at).bodyAsString())) {
          problems.add(
              stream(i)
                  + ": the consumer saw "
                  + seen.get(at).bodyAsString()
                  + " at seq "
                  + seen.get(at).seq()
                  + ", the stream holds "
                  + records.get(at).bodyAsString());
          break;
        }
      }
      if (seen.size() > records.size()) {
        problems.add(
            stream(i)
                + ": the consumer saw "
                + seen.size()
                + " records, the stream holds "
                + records.size());
      }
    }
    Producer slowest =
        producers.stream()
            .max(Comparator.comparingLong(p -> p.longestAckGapNanos.get()))
            .orElseThrow();
    return new Totals(
        acknowledged(),
        unackedPresent,
        unackedAbsent,
        consumed,
        sessionsReplaced.get(),
        Duration.ofNanos(slowest.longestAckGapNanos.get()),
        stream(slowest.stream),
        Map.copyOf(retries));
  }

  /** Every record of {@code stream}, from seq 0 to its tail. */
  static List<ReadRecord> readAll(PicoClient client, String stream) {
    List<ReadRecord> records = new ArrayList<>();
    long next = 0;
    while (true) {
      ReadResult read = client.read(stream, ReadRequest.from(next));
      records.addAll(read.records());
      next = read.nextSeq();
      if (read.upToDate() || read.records().isEmpty()) {
        return records;
      }
    }
  }

  @Override
  public void close() {
    stopping = true;
    followers.forEach(Follower::stop);
    clients.forEach(PicoClient::close);
  }

  /**
   * Writes records {@code 0, 1, 2, ...} to one stream through a producer session at a steady pace,
   * and records which were acknowledged at which seq.
   */
  private final class Producer {
    private final int stream;
    private final int producer;
    private int client;
    private long epoch;
    private ProducerSession session;

    /** Acknowledged records by n. */
    final ConcurrentSkipListMap<Long, Ack> acked = new ConcurrentSkipListMap<>();

    final AtomicLong sent = new AtomicLong();
    final AtomicLong longestAckGapNanos = new AtomicLong();
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final AtomicLong lastAck = new AtomicLong(System.nanoTime());
    private final AtomicLong lastAckedN = new AtomicLong(-1);

    Producer(int stream, int producer, int client) {
      this.stream = stream;
      this.producer = producer;
      this.client = client;
    }

    String body(long n) {
      return new Written(stream, producer, n).body();
    }

    void run() {
      try {
        open();
        for (long n = 0; !stopping; n++) {
          send(n);
          pace();
        }
        session.close();
        done.complete(null);
      } catch (Throwable e) {
        duringLoad("producer of " + stream(stream) + ": " + e);
        done.completeExceptionally(e);
      }
    }

    private void open() {
      session =
          clients
              .get(client)
              .producer(
                  stream(stream),
                  ProducerOptions.builder()
                      .producerId(String.format(Locale.ROOT, "chaos-s%02d-p%d", stream, producer))
                      .epoch(epoch)
                      .linger(Duration.ofMillis(5))
                      .maxInFlightRequests(4)
                      .retryBackoff(Duration.ofMillis(50), Duration.ofSeconds(1))
                      .deliveryTimeout(Duration.ofMinutes(2))
                      .build());
    }

    private void send(long n) {
      while (true) {
        try {
          session
              .send(Record.of(body(n)))
              .whenComplete((result, failure) -> onAnswer(n, result, failure));
          sent.set(n + 1);
          return;
        } catch (IllegalStateException broken) {
          // The session failed (reported by the future that failed it): go on with a new one.
          sessionsReplaced.incrementAndGet();
          epoch++;
          client = (client + 1) % clients.size();
          open();
        }
      }
    }

    private void onAnswer(long n, AppendResult result, Throwable failure) {
      if (failure != null) {
        duringLoad(
            stream(stream) + " n " + n + " failed in session epoch " + epoch + ": " + failure);
        return;
      }
      long now = System.nanoTime();
      longestAckGapNanos.accumulateAndGet(now - lastAck.getAndSet(now), Math::max);
      if (lastAckedN.getAndSet(n) >= n) {
        duringLoad(stream(stream) + " n " + n + " was acknowledged after a later one");
      }
      acked.put(n, new Ack(result.duplicate() ? -1 : result.startSeq(), now));
    }

    private void pace() throws InterruptedException {
      Thread.sleep(PRODUCER_PACE); // the load's rate, not a wait for an effect
    }
  }

  /** Follows one stream from seq 0 with a long-polling SDK consumer, keeping what it delivers. */
  private final class Follower {
    private final int stream;
    private final int client;
    final ConcurrentLinkedQueue<ReadRecord> seen = new ConcurrentLinkedQueue<>();
    volatile long next;
    private volatile boolean stopped;

    Follower(int stream, int client) {
      this.stream = stream;
      this.client = client;
    }

    void run() {
      Consumer consumer = null;
      try {
        while (!stopped) {
          if (consumer == null) {
            consumer =
                clients
                    .get(client)
                    .consumer(
                        stream(stream),
                        ConsumerOptions.fromSeq(next)
                            .retryBackoff(Duration.ofMillis(50), Duration.ofSeconds(1)));
          }
          ReadResult read;
          try {
            read = consumer.poll(Duration.ofMillis(500));
          } catch (PicoException e) {
            duringLoad("consumer of " + stream(stream) + " failed: " + e);
            consumer.close();
            consumer = null;
            continue;
          }
          for (ReadRecord record : read.records()) {
            if (record.seq() != next) {
              duringLoad(
                  "consumer of "
                      + stream(stream)
                      + " expected seq "
                      + next
                      + ", got "
                      + record.seq()
                      + (record.seq() < next ? " (a duplicate)" : " (a gap)"));
            }
            seen.add(record);
            next = record.seq() + 1;
          }
        }
      } catch (RuntimeException e) {
        if (!stopped) {
          duringLoad("consumer of " + stream(stream) + ": " + e);
        }
      } finally {
        if (consumer != null) {
          consumer.close();
        }
      }
    }

    boolean awaitPosition(long position, Duration within) {
      try {
        Awaitility.await(stream(stream) + " consumer at " + position)
            .atMost(within)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> next >= position);
        return true;
      } catch (ConditionTimeoutException e) {
        return false;
      }
    }

    void stop() {
      stopped = true;
    }
  }
}
