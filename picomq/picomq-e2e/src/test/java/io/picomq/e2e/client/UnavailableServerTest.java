package io.picomq.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.client.AppendOptions;
import io.picomq.client.AppendResult;
import io.picomq.client.CreateOptions;
import io.picomq.client.PicoClient;
import io.picomq.client.ProducerId;
import io.picomq.client.ProducerOptions;
import io.picomq.client.ProducerSession;
import io.picomq.client.Protocol;
import io.picomq.client.ReadRecord;
import io.picomq.client.ReadRequest;
import io.picomq.client.Record;
import io.picomq.client.ServiceUnavailableException;
import io.picomq.e2e.FaultProxy;
import io.picomq.e2e.FaultProxy.Fault;
import io.picomq.e2e.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The SDK against a real {@code pico serve} behind a {@link FaultProxy} that answers {@code 503} on
 * cue, including after the server did the work (the answer is lost): a producer session resends the
 * same stamps and the stream ends with each record once; a plain append is not resent unless asked,
 * and this test shows why.
 */
class UnavailableServerTest {

  @TempDir Path dir;

  /**
   * Every 5th append reaches the server but its answer becomes a 503; every 7th is refused before
   * reaching it. The session resends each until it is answered, the server answers the resends it
   * already has as duplicates, and the stream holds 0..n-1 once each, in order.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Protocol.class)
  void aProducerSessionThroughLostAnswersWritesEachRecordOnce(Protocol protocol) throws Exception {
    AtomicInteger posts = new AtomicInteger();
    try (ServerProcess server = Servers.start(dir, protocol);
        FaultProxy proxy =
            new FaultProxy(
                server.endpoint(),
                request -> {
                  if (!request.method().equals("POST")) {
                    return Fault.PASS;
                  }
                  int n = posts.getAndIncrement();
                  return n % 5 == 2 ? Fault.LOSE_ANSWER : n % 7 == 3 ? Fault.REFUSE : Fault.PASS;
                },
                "0");
        PicoClient direct = new Servers(protocol, false).client(server)) {
      LongAdder retries = new LongAdder();
      String stream = Servers.freshStream("unavailable");
      int count = 600;
      List<CompletableFuture<AppendResult>> sent = new ArrayList<>();
      try (PicoClient client =
          PicoClient.builder()
              .endpoint(proxy.endpoint())
              .protocol(protocol)
              .retryListener((failure, pause) -> retries.increment())
              .build()) {
        client.create(stream, CreateOptions.builder().contentType("application/json").build());
        try (ProducerSession producer =
            client.producer(
                stream,
                ProducerOptions.builder()
                    .linger(Duration.ofMillis(2))
                    .maxBatchRecords(20)
                    .maxInFlightRequests(4)
                    .retryBackoff(Duration.ofMillis(10), Duration.ofMillis(200))
                    .build())) {
          for (int i = 0; i < count; i++) {
            sent.add(producer.send(Record.of(Integer.toString(i))));
          }
          producer.flush();
        }
      }

      boolean sawDuplicate = false;
      for (CompletableFuture<AppendResult> future : sent) {
        sawDuplicate |= future.get(0, TimeUnit.SECONDS).duplicate();
      }
      assertThat(proxy.faults()).isPositive();
      assertThat(retries.sum()).isGreaterThanOrEqualTo(proxy.faults());
      assertThat(sawDuplicate).as("a resend of an append whose answer was lost").isTrue();
      ProducerSessionTest.assertExactly(direct, stream, count);
    }
  }

  /**
   * A plain append whose answer was lost did land; resending it (only when asked) writes it twice,
   * which is why a plain append does not retry by default. A stamped one is recognised.
   */
  @Test
  void aPlainAppendIsResentOnlyWhenAskedAndAStampedOneIsRecognised() throws Exception {
    AtomicReference<Fault> nextPost = new AtomicReference<>(Fault.PASS);
    AtomicInteger posts = new AtomicInteger();
    try (ServerProcess server = Servers.start(dir, Protocol.PICO);
        FaultProxy proxy =
            new FaultProxy(
                server.endpoint(),
                request -> {
                  if (!request.method().equals("POST")) {
                    return Fault.PASS;
                  }
                  posts.incrementAndGet();
                  return nextPost.getAndSet(Fault.PASS);
                },
                "0");
        PicoClient direct = new Servers(Protocol.PICO, false).client(server);
        PicoClient client = PicoClient.builder().endpoint(proxy.endpoint()).build()) {
      String stream = Servers.freshStream("plain");
      client.create(stream, CreateOptions.defaults());

      nextPost.set(Fault.LOSE_ANSWER);
      assertThatThrownBy(() -> client.append(stream, List.of(Record.of("a"))))
          .isInstanceOfSatisfying(
              ServiceUnavailableException.class,
              e -> {
                assertThat(e.errorCode()).isEqualTo("unavailable");
                assertThat(e.retryAfter()).contains(Duration.ZERO);
              });
      assertThat(posts).hasValue(1);
      // It landed all the same.
      assertThat(direct.head(stream).nextSeq()).isEqualTo(1);

      nextPost.set(Fault.LOSE_ANSWER);
      AppendResult resent =
          client.append(
              stream,
              List.of(Record.of("b")),
              AppendOptions.defaults().retryUnavailable(Duration.ofSeconds(10)));
      assertThat(posts).hasValue(3);
      assertThat(resent.startSeq()).isEqualTo(2);

      nextPost.set(Fault.LOSE_ANSWER);
      AppendResult stamped =
          client.append(
              stream,
              List.of(Record.of("c")),
              AppendOptions.defaults().producer(ProducerId.of("once"), 0, 0));
      assertThat(posts).hasValue(5);
      assertThat(stamped.duplicate()).isTrue();

      assertThat(direct.read(stream, ReadRequest.from(0)).records())
          .extracting(ReadRecord::bodyAsString)
          .containsExactly("a", "b", "b", "c");
    }
  }
}
