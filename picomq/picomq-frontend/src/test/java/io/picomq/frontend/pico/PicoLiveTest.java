package io.picomq.frontend.pico;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Live reads: long-polls that wake, time out and see the close; SSE feeds that resume and end. */
class PicoLiveTest extends PicoWireTest {

  private static final Duration SOON = Duration.ofSeconds(5);

  private static String textStream(PicoClient client, String hint, int records) {
    String name = PicoServer.freshName(hint);
    client.put(name, "", "Content-Type", "text/plain");
    for (int i = 0; i < records; i++) {
      client.post(name, "r" + i);
    }
    return name;
  }

  private static CompletableFuture<PicoClient.Answer> async(PicoClient client, String path) {
    return client
        .http
        .sendAsync(
            client.request("GET", path, new byte[0]).build(),
            HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(
            response ->
                new PicoClient.Answer(
                    response.statusCode(),
                    response.headers(),
                    response.body(),
                    response.version()));
  }

  @BothVersions
  void aParkedLongPollWakesOnAppend(HttpClient.Version version) throws Exception {
    PicoClient client = client(version);
    String name = textStream(client, "lp-wake", 1);

    int waits = server.service.waits.get();
    CompletableFuture<PicoClient.Answer> poll = async(client, name + "?seq=1&live=long-poll");
    server.service.awaitWaitsAbove(waits, SOON);
    assertThat(poll).isNotDone();
    client.post(name, "fresh");
    PicoClient.Answer answer = poll.get(SOON.toMillis(), TimeUnit.MILLISECONDS);

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.json().findValuesAsText("body")).containsExactly("fresh");
    assertThat(answer.seqHeader("pico-next-seq")).isEqualTo(2);
    assertThat(answer.header("pico-up-to-date")).contains("true");
    assertThat(answer.header("pico-cursor")).isPresent();
    assertThat(answer.header("etag")).isEmpty();
  }

  @BothVersions
  void aLongPollWithDataAnswersAtOnce(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = textStream(client, "lp-data", 2);

    PicoClient.Answer answer = client.get(name + "?seq=0&live=long-poll&format=raw");

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.text()).isEqualTo("r0r1");
  }

  @BothVersions
  void anIdleLongPollAnswers204AfterTheTimeoutWithAFreshCursor(HttpClient.Version version) {
    PicoClient client = client(version);
    String name = textStream(client, "lp-timeout", 1);
    long started = System.nanoTime();

    PicoClient.Answer first = client.get(name + "?seq=1&live=long-poll");
    String cursor = first.header("pico-cursor").orElseThrow();
    PicoClient.Answer second = client.get(name + "?seq=1&live=long-poll&cursor=" + cursor);

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(LONG_POLL);
    assertThat(first.status()).isEqualTo(204);
    assertThat(first.seqHeader("pico-next-seq")).isEqualTo(1);
    assertThat(first.header("pico-up-to-date")).contains("true");
    assertThat(first.header("pico-closed")).isEmpty();
    assertThat(second.status()).isEqualTo(204);
    assertThat(Long.parseLong(second.header("pico-cursor").orElseThrow()))
        .isGreaterThan(Long.parseLong(cursor));
  }

  @BothVersions
  void aLongPollSeesTheClose(HttpClient.Version version) throws Exception {
    PicoClient client = client(version);
    String name = textStream(client, "lp-close", 1);

    int waits = server.service.waits.get();
    CompletableFuture<PicoClient.Answer> poll = async(client, name + "?seq=now&live=long-poll");
    server.service.awaitWaitsAbove(waits, SOON);
    client.post(name, "", "Pico-Closed", "true");
    PicoClient.Answer woken = poll.get(SOON.toMillis(), TimeUnit.MILLISECONDS);
    PicoClient.Answer afterwards = client.get(name + "?seq=1&live=long-poll");

    assertThat(woken.status()).isEqualTo(204);
    assertThat(woken.header("pico-closed")).contains("true");
    assertThat(afterwards.status()).isEqualTo(204);
    assertThat(afterwards.header("pico-closed")).contains("true");
  }

  @BothVersions
  void aLongPollOnADeletedStreamAnswers404(HttpClient.Version version) throws Exception {
    PicoClient client = client(version);
    String name = textStream(client, "lp-delete", 0);

    int waits = server.service.waits.get();
    CompletableFuture<PicoClient.Answer> poll = async(client, name + "?live=long-poll");
    server.service.awaitWaitsAbove(waits, SOON);
    client.delete(name);

    assertError(poll.get(SOON.toMillis(), TimeUnit.MILLISECONDS), 404, "stream_not_found");
  }

  @BothVersions
  void sseDeliversCatchUpThenLiveRecordsThenTheClose(HttpClient.Version version) throws Exception {
    PicoClient client = client(version);
    String name = textStream(client, "sse", 2);

    try (SseReader sse = SseReader.open(client, name + "?live=sse")) {
      assertThat(sse.response.statusCode()).isEqualTo(200);
      assertThat(sse.response.headers().firstValue("content-type")).contains("text/event-stream");
      SseReader.Event first = sse.next(SOON);
      SseReader.Event second = sse.next(SOON);
      SseReader.Event caughtUp = sse.next(SOON);
      client.post(name, "live", "X-Ignored", "1");
      SseReader.Event live = sse.next(SOON);
      SseReader.Event liveUpToDate = sse.next(SOON);
      client.post(name, "", "Pico-Closed", "true");
      SseReader.Event closed = sse.next(SOON);

      assertThat(first.id()).isEqualTo("0");
      assertThat(first.type()).isEqualTo("message");
      assertThat(first.json().path("body").asText()).isEqualTo("r0");
      assertThat(first.json().path("seq").asLong()).isZero();
      assertThat(second.id()).isEqualTo("1");
      assertThat(caughtUp.type()).isEqualTo("control");
      assertThat(caughtUp.json().path("up_to_date").asBoolean()).isTrue();
      assertThat(caughtUp.json().path("next_seq").asLong()).isEqualTo(2);
      assertThat(live.id()).isEqualTo("2");
      assertThat(live.json().path("body").asText()).isEqualTo("live");
      assertThat(live.json().path("timestamp").asLong()).isPositive();
      assertThat(liveUpToDate.type()).isEqualTo("control");
      assertThat(closed.type()).isEqualTo("control");
      JsonNode control = closed.json();
      assertThat(control.path("closed").asBoolean()).isTrue();
      assertThat(control.path("next_seq").asLong()).isEqualTo(3);
      assertThat(closed.id()).isEqualTo("2");
      assertThat(sse.ends(SOON)).isTrue();
    }
  }

  @BothVersions
  void sseResumesAfterLastEventId(HttpClient.Version version) throws Exception {
    PicoClient client = client(version);
    String name = textStream(client, "sse-resume", 5);

    try (SseReader sse = SseReader.open(client, name + "?seq=0&live=sse", "Last-Event-ID", "2")) {
      assertThat(sse.next(SOON).id()).isEqualTo("3");
      assertThat(sse.next(SOON).id()).isEqualTo("4");
      assertThat(sse.next(SOON).type()).isEqualTo("control");
    }
    try (SseReader sse = SseReader.open(client, name + "?seq=now&live=sse")) {
      SseReader.Event atTail = sse.next(SOON);
      assertThat(atTail.type()).isEqualTo("control");
      // A reconnect that sends this id continues at the tail.
      assertThat(atTail.id()).isEqualTo("4");
    }
  }

  @BothVersions
  void sseAtTheEndOfASealedStreamAnswers204(HttpClient.Version version) throws Exception {
    PicoClient client = client(version);
    String name = textStream(client, "sse-sealed", 1);
    client.post(name, "", "Pico-Closed", "true");

    try (SseReader sse = SseReader.open(client, name + "?live=sse", "Last-Event-ID", "0")) {
      assertThat(sse.response.statusCode()).isEqualTo(204);
      assertThat(sse.response.headers().firstValue("pico-closed")).contains("true");
    }
    try (SseReader sse = SseReader.open(client, name + "?live=sse")) {
      assertThat(sse.next(SOON).id()).isEqualTo("0");
      assertThat(sse.next(SOON).json().path("closed").asBoolean()).isTrue();
      assertThat(sse.ends(SOON)).isTrue();
    }
  }

  @BothVersions
  void sseOnAnUnknownStreamIs404(HttpClient.Version version) {
    PicoClient client = client(version);

    assertError(
        client.get(PicoServer.freshName("sse-missing") + "?live=sse"), 404, "stream_not_found");
  }

  @BothVersions
  void aClientLeavingAnSseFeedReleasesItsWait(HttpClient.Version version) throws Exception {
    PicoClient client = client(version);
    String name = textStream(client, "sse-leave", 0);
    int waits = server.service.waits.get();

    SseReader sse = SseReader.open(client, name + "?live=sse");
    assertThat(sse.next(SOON).type()).isEqualTo("control");
    server.service.awaitWaitsAbove(waits, SOON);
    sse.close();

    server.service.awaitAllWaitsReleased(SOON);
  }
}
