package io.picomq.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.client.AppendResult;
import io.picomq.client.CreateOptions;
import io.picomq.client.PicoClient;
import io.picomq.client.ProducerOptions;
import io.picomq.client.ProducerSession;
import io.picomq.client.ReadRecord;
import io.picomq.client.ReadRequest;
import io.picomq.client.ReadResult;
import io.picomq.client.Record;
import io.picomq.client.ServiceUnavailableException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * Writers and a reader against one node while a test breaks its storage, each recording what it was
 * answered, so the test can assert that every answer was bounded and typed and that nothing
 * acknowledged is lost:
 *
 * <ul>
 *   <li>plain appends (no producer stamp) of 256 KiB records, paced, from {@value #PLAIN_WRITERS}
 *       writers to {@code /faults/plain}: an acknowledged one must be found at its {@code
 *       Pico-Start-Seq}; one refused with {@code may_have_completed} may or may not be there;
 *   <li>a producer over raw HTTP to {@code /faults/producer}: producer seq {@code n} carries {@code
 *       n}, resent with the same stamp after each 503/507 until acknowledged, so the stream must
 *       hold 0, 1, 2, ... once each at seqs 0, 1, 2, ...;
 *   <li>an SDK {@link ProducerSession} to {@code /faults/session}, which retries 503 by itself:
 *       likewise each record once, in order;
 *   <li>a reader of acknowledged plain records, which must read back what was written.
 * </ul>
 *
 * Every HTTP answer goes through {@link Answers} (bounded, never a 500, typed when 503/507). What
 * breaks an expectation is collected in {@link #problems} rather than thrown on a load thread.
 *
 * <p>Threading: the load runs on its own platform threads; the test thread calls the rest.
 */
final class FaultLoad implements AutoCloseable {
  static final String PLAIN = "/faults/plain";
  static final String PRODUCER = "/faults/producer";
  static final String SESSION = "/faults/session";

  private static final int PLAIN_WRITERS = 2;
  private static final int RECORD_BYTES = 256 * 1024;
  private static final Duration PLAIN_PACE = Duration.ofMillis(100);
  private static final Duration PRODUCER_PACE = Duration.ofMillis(20);
  private static final Duration SESSION_PACE = Duration.ofMillis(20);
  private static final Duration READER_PACE = Duration.ofMillis(50);
  private static final Pattern ERROR = Pattern.compile("\"error\"\\s*:\\s*\"([^\"]*)\"");
  private static final Map<String, String> OCTETS =
      Map.of("Content-Type", "application/octet-stream");

  /** What the writers saw so far. */
  record Progress(int plainAcked, int producerAcked, int sessionAcked, int refused) {
    boolean allAdvancedPast(Progress earlier, int by) {
      return plainAcked >= earlier.plainAcked + by
          && producerAcked >= earlier.producerAcked + by
          && sessionAcked >= earlier.sessionAcked + by;
    }
  }

  /** An acknowledged plain record: who wrote it, which of theirs it was. */
  private record Sent(int writer, int index) {}

  private final URI endpoint;
  private final Answers answers;
  private final Random random;
  private final PicoClient client;
  private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
  private final ConcurrentSkipListMap<Long, Sent> plainAcked = new ConcurrentSkipListMap<>();
  private final CopyOnWriteArrayList<Long> plainSeqs = new CopyOnWriteArrayList<>();
  private final AtomicInteger producerAcked = new AtomicInteger();
  private final AtomicInteger sessionAcked = new AtomicInteger();
  private final AtomicInteger refused = new AtomicInteger();
  private final ConcurrentSkipListMap<String, Integer> answered = new ConcurrentSkipListMap<>();
  private final ConcurrentSkipListMap<String, Long> slowestMillis = new ConcurrentSkipListMap<>();
  private final List<CompletableFuture<AppendResult>> sessionSent = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopping;

  private FaultLoad(URI endpoint, Answers answers, long seed, Duration bound) {
    this.endpoint = endpoint;
    this.answers = answers;
    this.random = new Random(seed);
    this.client =
        PicoClient.builder()
            .endpoint(endpoint)
            .requestTimeout(bound)
            .retryListener(
                (failure, pause) -> {
                  // The session retries by itself; a retry after anything but a typed 503/507
                  // means the server answered 500, or nothing within the bound.
                  if (!(failure instanceof ServiceUnavailableException unavailable)
                      || unavailable.retryAfter().isEmpty()) {
                    problems.add("session retried after " + failure);
                  }
                })
            .build();
  }

  /** Creates the streams and starts the load. */
  static FaultLoad start(URI endpoint, Answers answers, long seed, Duration bound)
      throws Exception {
    FaultLoad load = new FaultLoad(endpoint, answers, seed, bound);
    load.create(PLAIN, "application/octet-stream");
    load.create(PRODUCER, "application/json");
    load.create(SESSION, "application/json");
    for (int w = 0; w < PLAIN_WRITERS; w++) {
      int writer = w;
      load.thread("plain-" + w, () -> load.plainWriter(writer));
    }
    load.thread("producer", load::producer);
    load.thread("session", load::session);
    load.thread("reader", load::reader);
    return load;
  }

  Progress progress() {
    return new Progress(plainAcked.size(), producerAcked.get(), sessionAcked.get(), refused.get());
  }

  /**
   * What was answered so far, for reading a failure or a slow run: a count per kind of request,
   * status and error, and the slowest answer per kind of request.
   */
  String summary() {
    return "answered " + answered + ", slowest (ms) " + slowestMillis;
  }

  /** Fails at once if any answer so far broke an expectation. */
  void assertNoProblems() {
    assertThat(problems).as("answers that broke an expectation").isEmpty();
  }

  /** Stops writing: each writer finishes the record in hand, the session flushes. */
  void stop() throws InterruptedException {
    stopping = true;
    for (Thread thread : threads) {
      thread.join(Duration.ofSeconds(90));
      assertThat(thread.isAlive()).as("%s still running", thread.getName()).isFalse();
    }
  }

  /**
   * Every acknowledged plain record is at its acknowledged seq with the bytes written; the
   * producer's and the session's streams hold their records once each, in order, at seqs 0..n-1.
   */
  void assertEverythingAcknowledgedIsThere() throws Exception {
    for (Map.Entry<Long, Sent> ack : plainAcked.entrySet()) {
      HttpResponse<byte[]> read = readPlain(ack.getKey());
      assertThat(read.statusCode()).as("read of acknowledged seq %s", ack.getKey()).isEqualTo(200);
      assertThat(read.body())
          .as("record at acknowledged seq %s", ack.getKey())
          .isEqualTo(record(ack.getValue()));
    }
    try (PicoClient reader = PicoClient.builder().endpoint(endpoint).build()) {
      assertExactly(reader, PRODUCER, producerAcked.get());
      assertExactly(reader, SESSION, sessionSent.size());
    }
  }

  /** Stops the load without waiting for it (a test that failed half-way). */
  @Override
  public void close() {
    stopping = true;
    client.close();
  }

  private void create(String stream, String contentType) {
    client.create(stream, CreateOptions.builder().contentType(contentType).build());
  }

  private void thread(String name, Body body) {
    threads.add(
        Thread.ofPlatform()
            .daemon()
            .name("fault-load-" + name)
            .start(
                () -> {
                  try {
                    body.run();
                  } catch (Throwable e) {
                    problems.add(name + ": " + e);
                  }
                }));
  }

  private void plainWriter(int writer) throws Exception {
    for (int index = 0; !stopping; index++) {
      Sent sent = new Sent(writer, index);
      HttpResponse<byte[]> answer = attempt("plain append", "POST", PLAIN, OCTETS, record(sent));
      if (answer != null && answer.statusCode() == 200) {
        long seq = Long.parseLong(Answers.header(answer, "pico-start-seq").orElseThrow());
        if (plainAcked.putIfAbsent(seq, sent) != null) {
          problems.add("two plain appends acknowledged at seq " + seq);
        }
        plainSeqs.add(seq);
      } else if (answer != null) {
        expect("plain append", answer, 503, 507);
      }
      pace(PLAIN_PACE);
    }
  }

  private void producer() throws Exception {
    for (int seq = 0; !stopping; seq++) {
      if (!produce(seq)) {
        return;
      }
      producerAcked.incrementAndGet();
      pace(PRODUCER_PACE);
    }
  }

  /** Sends producer seq {@code seq} until it is acknowledged; false if it never can be. */
  private boolean produce(int seq) throws Exception {
    Map<String, String> stamp =
        Map.of(
            "Content-Type", "application/json",
            "Pico-Producer-Id", "fault-load",
            "Pico-Producer-Epoch", "0",
            "Pico-Producer-Seq", Integer.toString(seq));
    byte[] body = Integer.toString(seq).getBytes(StandardCharsets.UTF_8);
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() - deadline < 0) {
      HttpResponse<byte[]> answer = attempt("producer append", "POST", PRODUCER, stamp, body);
      if (answer == null) {
        continue;
      }
      switch (answer.statusCode()) {
        case 200 -> {
          String at = Answers.header(answer, "pico-start-seq").orElseThrow();
          if (!at.equals(Integer.toString(seq))) {
            problems.add("producer seq " + seq + " acknowledged at " + at);
          }
          return true;
        }
        case 204 -> {
          return true; // a resend of one that landed: acknowledged, written once
        }
        case 503, 507 -> {
          expect("producer append", answer, 503, 507);
          pace(Duration.ofSeconds(Long.parseLong(Answers.header(answer, "retry-after").get())));
        }
        default -> {
          problems.add("producer seq " + seq + " answered " + describe(answer));
          return false;
        }
      }
    }
    problems.add("producer seq " + seq + " not acknowledged within 2 minutes");
    return false;
  }

  private void session() throws Exception {
    ProducerOptions options =
        ProducerOptions.builder()
            .linger(Duration.ofMillis(5))
            .maxBatchRecords(50)
            .maxInFlightRequests(4)
            .retryBackoff(Duration.ofMillis(50), Duration.ofSeconds(1))
            .build();
    try (ProducerSession producer = client.producer(SESSION, options)) {
      for (int i = 0; !stopping; i++) {
        int index = i;
        CompletableFuture<AppendResult> sent = producer.send(Record.of(Integer.toString(i)));
        sessionSent.add(sent);
        sent.whenComplete(
            (result, failure) -> {
              if (failure != null) {
                problems.add("session record " + index + " failed: " + failure);
              } else if (!result.duplicate() && result.startSeq() != index) {
                problems.add("session record " + index + " acknowledged at " + result.startSeq());
              } else {
                sessionAcked.incrementAndGet();
              }
            });
        pace(SESSION_PACE);
      }
      producer.flush();
    }
    for (CompletableFuture<AppendResult> sent : sessionSent) {
      sent.get(0, TimeUnit.SECONDS); // flushed: done, and a failure was reported above
    }
  }

  private void reader() throws Exception {
    while (!stopping) {
      if (!plainSeqs.isEmpty()) {
        long seq = plainSeqs.get(random.nextInt(plainSeqs.size()));
        HttpResponse<byte[]> read = readPlain(seq);
        if (read != null && read.statusCode() == 200) {
          if (!Arrays.equals(read.body(), record(plainAcked.get(seq)))) {
            problems.add("acknowledged seq " + seq + " read back other bytes");
          }
        } else if (read != null) {
          expect("read", read, 503);
        }
      }
      pace(READER_PACE);
    }
  }

  private HttpResponse<byte[]> readPlain(long seq) {
    return attempt(
        "read", "GET", PLAIN + "?seq=" + seq + "&count=1&format=raw", Map.of(), (byte[]) null);
  }

  /** One request; a broken expectation (a 500, too slow, no answer) is a problem, and null. */
  private HttpResponse<byte[]> attempt(
      String what, String method, String target, Map<String, String> headers, byte[] body) {
    long started = System.nanoTime();
    try {
      HttpResponse<byte[]> answer = answers.send(method, endpoint.resolve(target), headers, body);
      String text = new String(answer.body(), StandardCharsets.UTF_8);
      Matcher error = ERROR.matcher(answer.statusCode() >= 300 ? text : "");
      answered.merge(
          what + " " + answer.statusCode() + (error.find() ? " " + error.group(1) : ""),
          1,
          Integer::sum);
      return answer;
    } catch (AssertionError | Exception e) {
      problems.add(what + ": " + e);
      return null;
    } finally {
      slowestMillis.merge(what, (System.nanoTime() - started) / 1_000_000, Math::max);
    }
  }

  private void expect(String what, HttpResponse<byte[]> answer, Integer... statuses) {
    if (!List.of(statuses).contains(answer.statusCode())) {
      problems.add(what + " answered " + describe(answer));
      return;
    }
    refused.incrementAndGet();
    // A refused write says whether it may still land, so the client knows to retry idempotently.
    if (!answer.request().method().equals("GET")
        && !new String(answer.body(), StandardCharsets.UTF_8).contains("\"may_have_completed\"")) {
      problems.add(what + " refused without may_have_completed: " + describe(answer));
    }
  }

  private static String describe(HttpResponse<byte[]> answer) {
    return answer.statusCode() + " " + new String(answer.body(), StandardCharsets.UTF_8);
  }

  /** The 256 KiB of a plain record: its writer and index, then a filler derived from them. */
  private static byte[] record(Sent sent) {
    byte[] body = new byte[RECORD_BYTES];
    Arrays.fill(body, (byte) ('a' + (sent.writer() * 7 + sent.index()) % 26));
    byte[] label =
        String.format(Locale.ROOT, "w%d-%08d;", sent.writer(), sent.index())
            .getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(label, 0, body, 0, label.length);
    return body;
  }

  /** The stream holds exactly the records "0".."count-1", once each, at seqs 0..count-1. */
  private static void assertExactly(PicoClient client, String stream, int count) {
    List<ReadRecord> records = new ArrayList<>();
    long next = 0;
    while (true) {
      ReadResult read = client.read(stream, ReadRequest.from(next));
      records.addAll(read.records());
      next = read.nextSeq();
      if (read.upToDate() || read.records().isEmpty()) {
        break;
      }
    }
    assertThat(records)
        .as(stream)
        .extracting(ReadRecord::bodyAsString)
        .containsExactlyElementsOf(IntStream.range(0, count).mapToObj(Integer::toString).toList());
    assertThat(records)
        .as(stream)
        .extracting(ReadRecord::seq)
        .containsExactlyElementsOf(IntStream.range(0, count).asLongStream().boxed().toList());
  }

  /** Paces a load thread: a rate, not a wait for an effect. */
  private static void pace(Duration pause) throws InterruptedException {
    Thread.sleep(pause);
  }

  /** A load thread's body. */
  private interface Body {
    void run() throws Exception;
  }
}
