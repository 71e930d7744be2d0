package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.protocol.PicoHeaders;
import io.picomq.protocol.ReadBatch;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code 503} with {@code Retry-After} on a real socket: a scripted server answers unavailable a
 * given number of times, then as a PicoMQ node would. Calls that are safe to repeat retry by
 * themselves and send the same request again; a plain append and a delete do not; a call gives up
 * with {@link ServiceUnavailableException} after its budget.
 */
class UnavailableRetryTest {

  /** The offset a read asks for. */
  private static final Pattern SEQ = Pattern.compile("[?&]seq=(\\d+)");

  /** A request as the server saw it, with when it arrived. */
  record Seen(String method, String target, Map<String, String> headers, String body, long nanos) {}

  private ScriptedHttpServer server;
  private URI base;
  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final AtomicInteger unavailableLeft = new AtomicInteger(1);
  private volatile String retryAfter = "0";
  private final AtomicInteger nextSeq = new AtomicInteger();
  private volatile Function<ScriptedHttpServer.Request, ScriptedHttpServer.Answer> success =
      UnavailableRetryTest::nodeAnswer;

  @BeforeEach
  void start() throws IOException {
    server =
        new ScriptedHttpServer(
            request -> {
              seen.add(
                  new Seen(
                      request.method(),
                      request.target(),
                      request.headers(),
                      HexFormat.of().formatHex(request.body()),
                      System.nanoTime()));
              if (request.target().startsWith("/entry/")) {
                return new ScriptedHttpServer.Answer(
                    307, Map.of("Location", "/owner/" + request.target().substring(7)));
              }
              if (unavailableLeft.getAndDecrement() > 0) {
                return unavailable(retryAfter);
              }
              return success.apply(request);
            });
    base = server.base();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private static ScriptedHttpServer.Answer unavailable(String retryAfter) {
    return new ScriptedHttpServer.Answer(
        503,
        Map.of("Retry-After", retryAfter, "Content-Type", "application/json"),
        "{\"error\":\"storage_unavailable\",\"message\":\"the object store is failing\"}"
            .getBytes(StandardCharsets.UTF_8));
  }

  /** What a node answers to each kind of request, enough for the SDK to decode it. */
  private static ScriptedHttpServer.Answer nodeAnswer(ScriptedHttpServer.Request request) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(PicoHeaders.START_SEQ, "0");
    headers.put(PicoHeaders.NEXT_SEQ, "2");
    headers.put(PicoHeaders.TIMESTAMP, "1000");
    Matcher seq = SEQ.matcher(request.target());
    if (request.method().equals("GET") && seq.find()) {
      headers.put(PicoHeaders.UP_TO_DATE, "true");
      headers.put("Content-Type", "application/vnd.picomq.read");
      // The stream holds "a" and "b": a read from past them (a consumer's next long-poll, which
      // may start before the test polls again) gets nothing, as from a node.
      long from = Long.parseLong(seq.group(1));
      List<ReadBatch.Entry> entries =
          Stream.of(
                  ReadBatch.Entry.of(0, 1000, Map.of(), "a".getBytes(StandardCharsets.UTF_8)),
                  ReadBatch.Entry.of(1, 1000, Map.of(), "b".getBytes(StandardCharsets.UTF_8)))
              .filter(entry -> entry.seq() >= from)
              .toList();
      return new ScriptedHttpServer.Answer(200, headers, ReadBatch.encode(entries));
    }
    if (request.method().equals("GET")) {
      headers.put("Content-Type", "application/json");
      return new ScriptedHttpServer.Answer(
          200,
          headers,
          "{\"streams\":[{\"name\":\"/s\",\"next_seq\":2}],\"has_more\":false}"
              .getBytes(StandardCharsets.UTF_8));
    }
    return new ScriptedHttpServer.Answer(200, headers);
  }

  private PicoClient client() {
    return PicoClient.builder().endpoint(base).build();
  }

  static Stream<Named<Function<PicoClient, Object>>> idempotentCalls() {
    return Stream.of(
        Named.of("create", c -> c.create("/s", CreateOptions.defaults())),
        Named.of("head", c -> c.head("/s")),
        Named.of("read", c -> c.read("/s", ReadRequest.from(0))),
        Named.of("list", c -> c.list(ListRequest.all())),
        Named.of(
            "trim",
            c -> {
              c.trim("/s", 1);
              return "trimmed";
            }),
        Named.of("close", c -> c.close("/s")),
        Named.of(
            "append with a producer stamp",
            c ->
                c.append(
                    "/s",
                    List.of(Record.of("x")),
                    AppendOptions.defaults().producer(ProducerId.of("p"), 0, 0))),
        Named.of(
            "append with retryUnavailable",
            c ->
                c.append(
                    "/s",
                    List.of(Record.of("x")),
                    AppendOptions.defaults().retryUnavailable(Duration.ofSeconds(10)))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("idempotentCalls")
  void callsSafeToRepeatRetryA503AndSendTheSameRequestAgain(Function<PicoClient, Object> call) {
    List<PicoException> retries = new CopyOnWriteArrayList<>();
    try (PicoClient client =
        PicoClient.builder()
            .endpoint(base)
            .retryListener((failure, pause) -> retries.add(failure))
            .build()) {
      assertThat(call.apply(client)).isNotNull();
    }
    assertThat(seen).hasSize(2);
    Seen first = seen.get(0);
    Seen second = seen.get(1);
    assertThat(second.method()).isEqualTo(first.method());
    assertThat(second.target()).isEqualTo(first.target());
    assertThat(second.body()).isEqualTo(first.body());
    assertThat(second.headers()).containsAllEntriesOf(withoutConnectionHeaders(first.headers()));
    assertThat(retries)
        .singleElement()
        .isInstanceOfSatisfying(
            ServiceUnavailableException.class,
            e -> {
              // An answer to HEAD has no body, hence no code; the status and header say enough.
              assertThat(e.errorCode()).isIn("storage_unavailable", "http_503");
              assertThat(e.retryAfter()).contains(Duration.ZERO);
            });
  }

  private static Map<String, String> withoutConnectionHeaders(Map<String, String> headers) {
    Map<String, String> kept = new LinkedHashMap<>(headers);
    kept.keySet().removeIf(name -> name.equals("connection") || name.equals("upgrade"));
    return kept;
  }

  @Test
  void theRetryWaitsAtLeastRetryAfter() {
    retryAfter = "1";
    try (PicoClient client = client()) {
      assertThat(client.head("/s").nextSeq()).isEqualTo(2);
    }
    assertThat(seen).hasSize(2);
    assertThat(seen.get(1).nanos() - seen.get(0).nanos())
        .isGreaterThanOrEqualTo(Duration.ofSeconds(1).toNanos());
  }

  @Test
  void aPlainAppendIsNotRetriedUnlessAsked() {
    try (PicoClient client = client()) {
      assertThatThrownBy(() -> client.append("/s", List.of(Record.of("x"))))
          .isInstanceOfSatisfying(
              ServiceUnavailableException.class,
              e -> {
                assertThat(e.status()).isEqualTo(503);
                assertThat(e.errorCode()).isEqualTo("storage_unavailable");
                assertThat(e.message()).isEqualTo("the object store is failing");
                assertThat(e.retryAfter()).contains(Duration.ZERO);
              });
      assertThat(seen).hasSize(1);

      // A producer-stamped append with a zero budget is not retried either.
      unavailableLeft.set(1);
      assertThatThrownBy(
              () ->
                  client.append(
                      "/s",
                      List.of(Record.of("x")),
                      AppendOptions.defaults()
                          .producer(ProducerId.of("p"), 0, 0)
                          .retryUnavailable(Duration.ZERO)))
          .isInstanceOf(ServiceUnavailableException.class);
      assertThat(seen).hasSize(2);
    }
  }

  @Test
  void aDeleteIsNotRetried() {
    try (PicoClient client = client()) {
      assertThatThrownBy(() -> client.delete("/s")).isInstanceOf(ServiceUnavailableException.class);
    }
    assertThat(seen).hasSize(1);
  }

  @Test
  void aCallGivesUpAfterItsBudgetWithTheTypedException() {
    unavailableLeft.set(Integer.MAX_VALUE);
    retryAfter = "1";
    long start = System.nanoTime();
    try (PicoClient client =
        PicoClient.builder().endpoint(base).retryUnavailable(Duration.ofMillis(2500)).build()) {
      assertThatThrownBy(() -> client.head("/s"))
          .isInstanceOfSatisfying(
              ServiceUnavailableException.class,
              e -> assertThat(e.retryAfter()).contains(Duration.ofSeconds(1)));
    }
    long elapsed = System.nanoTime() - start;
    // Tries at 0, 1 and 2 s; a pause to 3 s would end past the budget, so it stops there.
    assertThat(seen).hasSize(3);
    assertThat(elapsed).isLessThan(Duration.ofMillis(2500).toNanos());
  }

  @Test
  void aRetryAfterBeyondTheBudgetGivesUpAtOnce() {
    unavailableLeft.set(Integer.MAX_VALUE);
    retryAfter = "120";
    long start = System.nanoTime();
    try (PicoClient client = client()) {
      assertThatThrownBy(() -> client.read("/s", ReadRequest.from(0)))
          .isInstanceOf(ServiceUnavailableException.class);
    }
    assertThat(seen).hasSize(1);
    assertThat(System.nanoTime() - start).isLessThan(Duration.ofSeconds(10).toNanos());
  }

  @Test
  void aZeroBudgetNeverRetries() {
    try (PicoClient client =
        PicoClient.builder().endpoint(base).retryUnavailable(Duration.ZERO).build()) {
      assertThatThrownBy(() -> client.head("/s")).isInstanceOf(ServiceUnavailableException.class);
    }
    assertThat(seen).hasSize(1);
  }

  /**
   * The entry node redirects to the owner, which is unavailable once: the retry starts again at the
   * entry node (which may by then route elsewhere), and each attempt has its own hop limit.
   */
  @Test
  void aRetryFollowsTheRedirectAgainFromTheEntryNode() {
    try (PicoClient client = client()) {
      AppendResult result =
          client.append(
              "/entry/s",
              List.of(Record.of("x")),
              AppendOptions.defaults().producer(ProducerId.of("p"), 0, 0));
      assertThat(result.nextSeq()).isEqualTo(2);
    }
    assertThat(seen)
        .extracting(Seen::target)
        .containsExactly("/entry/s", "/owner/s", "/entry/s", "/owner/s");
    assertThat(seen).extracting(Seen::method).containsOnly("POST");
    assertThat(seen).extracting(Seen::body).containsOnly(seen.get(0).body());
  }

  @Test
  void aConsumerCatchingUpRetriesA503() {
    assertConsumerRetries(LiveMode.NONE);
  }

  @Test
  void aLongPollingConsumerRetriesA503() {
    assertConsumerRetries(LiveMode.LONG_POLL);
  }

  @Test
  void anSseConsumerRetriesA503() {
    success =
        request ->
            new ScriptedHttpServer.Answer(
                200,
                Map.of("Content-Type", "text/event-stream"),
                ("event: message\ndata: {\"seq\":0,\"timestamp\":1,\"body\":\"a\"}\n\n"
                        + "event: message\ndata: {\"seq\":1,\"timestamp\":1,\"body\":\"b\"}\n\n"
                        + "event: control\ndata: {\"next_seq\":2,\"up_to_date\":true}\n\n")
                    .getBytes(StandardCharsets.UTF_8));
    assertConsumerRetries(LiveMode.SSE);
  }

  private void assertConsumerRetries(LiveMode mode) {
    retryAfter = "1";
    List<PicoException> retries = new CopyOnWriteArrayList<>();
    List<String> bodies = new ArrayList<>();
    try (PicoClient client =
            PicoClient.builder()
                .endpoint(base)
                .retryListener((failure, pause) -> retries.add(failure))
                .build();
        Consumer consumer = client.consumer("/s", ConsumerOptions.fromSeq(0).live(mode))) {
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (bodies.size() < 2 && System.nanoTime() < deadline) {
        for (ReadRecord record : consumer.poll(Duration.ofSeconds(5)).records()) {
          bodies.add(new String(record.body(), StandardCharsets.UTF_8));
        }
      }
    }
    assertThat(bodies).containsExactly("a", "b");
    assertThat(retries).first().isInstanceOf(ServiceUnavailableException.class);
    // The consumer's own backoff starts at 50 ms: only Retry-After explains a second's pause.
    assertThat(seen.get(1).nanos() - seen.get(0).nanos())
        .isGreaterThanOrEqualTo(Duration.ofSeconds(1).toNanos());
    assertThat(seen.get(1).target()).isEqualTo(seen.get(0).target());
  }

  /**
   * A producer session resends a batch answered 503 with the same stamp and bytes; the server (here
   * the script) answers each producer seq once.
   */
  @Test
  void aProducerSessionResendsTheSameStampAfterA503() throws Exception {
    success =
        request -> {
          int start = nextSeq.getAndIncrement();
          return new ScriptedHttpServer.Answer(
              200,
              Map.of(
                  PicoHeaders.START_SEQ,
                  Integer.toString(start),
                  PicoHeaders.NEXT_SEQ,
                  Integer.toString(start + 1)));
        };
    List<CompletableFuture<AppendResult>> sent = new ArrayList<>();
    try (PicoClient client = client();
        ProducerSession producer =
            client.producer(
                "/s",
                ProducerOptions.builder().maxInFlightRequests(1).linger(Duration.ZERO).build())) {
      for (int i = 0; i < 3; i++) {
        sent.add(producer.send(Record.of("r" + i)));
      }
      producer.flush();
    }
    for (int i = 0; i < 3; i++) {
      assertThat(sent.get(i).get(0, TimeUnit.SECONDS).startSeq()).isEqualTo(i);
    }
    // Records 1 and 2 may travel in one batch.
    assertThat(seen).hasSizeGreaterThanOrEqualTo(3);
    assertThat(seen.get(1).headers())
        .containsEntry("pico-producer-seq", "0")
        .containsEntry("pico-producer-seq", seen.get(0).headers().get("pico-producer-seq"))
        .containsEntry("pico-producer-id", seen.get(0).headers().get("pico-producer-id"));
    assertThat(seen.get(1).body()).isEqualTo(seen.get(0).body());
  }

  @Test
  void aProducerSessionGivesUpAtItsDeliveryTimeoutWithTheTypedException() {
    unavailableLeft.set(Integer.MAX_VALUE);
    retryAfter = "1";
    CompletableFuture<AppendResult> future;
    try (PicoClient client = client();
        ProducerSession producer =
            client.producer(
                "/s",
                ProducerOptions.builder()
                    .linger(Duration.ZERO)
                    .deliveryTimeout(Duration.ofMillis(1500))
                    .build())) {
      future = producer.send(Record.of("x"));
      assertThatThrownBy(() -> future.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(ServiceUnavailableException.class);
    }
    // Sent at 0 and after the 1 s Retry-After; a second 1 s pause would pass 1.5 s.
    assertThat(seen).hasSize(2);
  }
}
