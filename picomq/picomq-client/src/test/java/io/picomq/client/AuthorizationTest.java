package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.picomq.protocol.PicoHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The token on the wire: a scripted node on a real socket accepts only {@code Authorization: Bearer
 * TOKEN}, answers {@code 401} the way a PicoMQ node does otherwise, and records what each request
 * carried. Every kind of request the SDK makes must carry the token, and refusals must arrive
 * typed.
 */
class AuthorizationTest {

  static final String TOKEN = "AAECAwQFBgcI.c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldC0x";

  /** What one request carried: method, target and its Authorization header (or null). */
  record Seen(String method, String target, String authorization) {}

  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private ScriptedHttpServer node;

  @BeforeEach
  void start() throws IOException {
    node = new ScriptedHttpServer(this::answer);
  }

  @AfterEach
  void stop() throws IOException {
    node.close();
  }

  private ScriptedHttpServer.Answer answer(ScriptedHttpServer.Request request) {
    String authorization = request.headers().get("authorization");
    seen.add(new Seen(request.method(), request.target(), authorization));
    if (!("Bearer " + TOKEN).equals(authorization)) {
      return json(
          401,
          Map.of("WWW-Authenticate", "Bearer realm=\"picomq\""),
          "{\"error\":\"unauthorized\",\"message\":\"a valid bearer token is required\"}");
    }
    if (request.target().startsWith("/forbidden")) {
      return json(403, Map.of(), "{\"error\":\"forbidden\",\"message\":\"not in the scope\"}");
    }
    if (request.target().startsWith("/?") || request.target().equals("/")) {
      return json(200, Map.of(), "{\"streams\":[],\"has_more\":false}");
    }
    if (request.target().contains("live=sse")) {
      String events =
          "event: message\ndata: {\"seq\":0,\"timestamp\":1,\"body\":\"hi\"}\n\n"
              + "event: control\ndata: {\"next_seq\":1,\"up_to_date\":true}\n\n";
      return new ScriptedHttpServer.Answer(
          200,
          Map.of("Content-Type", "text/event-stream"),
          events.getBytes(StandardCharsets.UTF_8));
    }
    return new ScriptedHttpServer.Answer(
        200,
        Map.of(
            PicoHeaders.START_SEQ,
            "0",
            PicoHeaders.NEXT_SEQ,
            "1",
            PicoHeaders.TIMESTAMP,
            "1",
            PicoHeaders.UP_TO_DATE,
            "true",
            "Content-Type",
            "text/plain"));
  }

  private static ScriptedHttpServer.Answer json(
      int status, Map<String, String> headers, String body) {
    Map<String, String> all = new java.util.LinkedHashMap<>(headers);
    all.put("Content-Type", "application/json");
    return new ScriptedHttpServer.Answer(status, all, body.getBytes(StandardCharsets.UTF_8));
  }

  private PicoClient client() {
    return PicoClient.builder().endpoint(node.base()).token(TOKEN).build();
  }

  @Test
  void everyCallCarriesTheToken() {
    try (PicoClient client = client()) {
      client.create("s", CreateOptions.defaults());
      client.append("s", List.of(Record.of("a")));
      client.head("s");
      client.read("s", ReadRequest.from(0));
      client.list(ListRequest.all());
      client.trim("s", 0);
      client.close("s");
      client.delete("s");
    }
    assertThat(seen)
        .extracting(Seen::method)
        .containsExactly("PUT", "POST", "HEAD", "GET", "GET", "POST", "POST", "DELETE");
    assertThat(seen).extracting(Seen::authorization).containsOnly("Bearer " + TOKEN);
  }

  @Test
  void overHttp2TheWarmUpCarriesTheTokenToo() {
    try (PicoClient client =
        PicoClient.builder().endpoint(node.base()).token(TOKEN).http2(true).build()) {
      client.head("s");
    }
    assertThat(seen).extracting(Seen::method).containsExactly("OPTIONS", "HEAD");
    assertThat(seen).extracting(Seen::authorization).containsOnly("Bearer " + TOKEN);
  }

  @Test
  void aClientWithoutATokenSendsNoHeaderAndGetsUnauthorized() {
    try (PicoClient client = PicoClient.builder().endpoint(node.base()).build()) {
      assertThatThrownBy(() -> client.read("s", ReadRequest.from(0)))
          .isInstanceOfSatisfying(
              UnauthorizedException.class,
              e -> {
                assertThat(e.status()).isEqualTo(401);
                assertThat(e.errorCode()).isEqualTo("unauthorized");
                assertThat(e.message()).isEqualTo("a valid bearer token is required");
                assertThat(e.isRetriable()).isFalse();
              });
    }
    assertThat(seen).extracting(Seen::authorization).containsOnlyNulls();
  }

  @Test
  void aRefusedHeadHasNoBodyAndStillSaysWhatHappened() {
    try (PicoClient client = PicoClient.builder().endpoint(node.base()).build()) {
      assertThatThrownBy(() -> client.head("s"))
          .isInstanceOf(UnauthorizedException.class)
          .hasMessage("401 unauthorized: no valid token (none was sent, or the server refused it)");
    }
    try (PicoClient client = client()) {
      assertThatThrownBy(() -> client.head("forbidden/s"))
          .isInstanceOf(ForbiddenException.class)
          .hasMessage("403 forbidden: the token's scope does not allow this request");
    }
  }

  @Test
  void aWrongTokenIsUnauthorizedAndAForbiddenRequestIsForbiddenNeitherRetried() {
    try (PicoClient client =
        PicoClient.builder().endpoint(node.base()).token("wrong.token").build()) {
      assertThatThrownBy(() -> client.read("s", ReadRequest.from(0)))
          .isInstanceOf(UnauthorizedException.class);
    }
    try (PicoClient client = client()) {
      assertThatThrownBy(
              () ->
                  client.append(
                      "forbidden/s",
                      List.of(Record.of("a")),
                      AppendOptions.defaults().retryUnavailable(Duration.ofSeconds(30))))
          .isInstanceOfSatisfying(
              ForbiddenException.class,
              e -> {
                assertThat(e.status()).isEqualTo(403);
                assertThat(e.message()).isEqualTo("not in the scope");
              });
    }
    assertThat(seen).hasSize(2);
  }

  @Test
  void aRedirectToAnotherNodeKeepsTheToken() throws IOException {
    try (ScriptedHttpServer entry =
            new ScriptedHttpServer(
                request ->
                    new ScriptedHttpServer.Answer(
                        307, Map.of("Location", node.base() + request.target())));
        PicoClient client = PicoClient.builder().endpoint(entry.base()).token(TOKEN).build()) {
      assertThat(client.append("s", List.of(Record.of("a"))).nextSeq()).isEqualTo(1);
    }
    assertThat(seen).containsExactly(new Seen("POST", "/s", "Bearer " + TOKEN));
  }

  @Test
  void sseFeedsCarryTheToken() {
    try (PicoClient client = client();
        Consumer consumer = client.consumer("s", ConsumerOptions.fromSeq(0).live(LiveMode.SSE))) {
      ReadResult read = consumer.poll(Duration.ofSeconds(10));
      assertThat(read.records()).extracting(ReadRecord::seq).containsExactly(0L);
    }
    assertThat(seen).anySatisfy(s -> assertThat(s.target()).contains("live=sse"));
    assertThat(seen).extracting(Seen::authorization).containsOnly("Bearer " + TOKEN);
  }

  @Test
  void longPollsCarryTheToken() {
    try (PicoClient client = client();
        Consumer consumer =
            client.consumer("s", ConsumerOptions.fromSeq(0).live(LiveMode.LONG_POLL))) {
      await()
          .atMost(10, TimeUnit.SECONDS)
          .untilAsserted(
              () -> {
                consumer.poll(Duration.ofMillis(100));
                assertThat(seen).anySatisfy(s -> assertThat(s.target()).contains("live=long-poll"));
              });
    }
    assertThat(seen).extracting(Seen::authorization).containsOnly("Bearer " + TOKEN);
  }

  @Test
  void aRefusedFeedFailsThePollInsteadOfRetrying() {
    try (PicoClient client = client();
        Consumer consumer =
            client.consumer("forbidden/s", ConsumerOptions.fromSeq(0).live(LiveMode.SSE))) {
      assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(10)))
          .isInstanceOf(ForbiddenException.class);
    }
  }

  @Test
  void producerSessionsCarryTheToken() throws Exception {
    try (PicoClient client = client();
        ProducerSession producer = client.producer("s", ProducerOptions.defaults())) {
      assertThat(producer.send(Record.of("a")).get(10, TimeUnit.SECONDS).startSeq()).isZero();
    }
    assertThat(seen).singleElement().isEqualTo(new Seen("POST", "/s", "Bearer " + TOKEN));
  }
}
