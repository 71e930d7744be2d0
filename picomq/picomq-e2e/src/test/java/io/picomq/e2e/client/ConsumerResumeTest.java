package io.picomq.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.picomq.client.Consumer;
import io.picomq.client.ConsumerOptions;
import io.picomq.client.CreateOptions;
import io.picomq.client.LiveMode;
import io.picomq.client.PicoClient;
import io.picomq.client.PicoException;
import io.picomq.client.ReadRecord;
import io.picomq.client.ReadResult;
import io.picomq.client.Record;
import io.picomq.e2e.ServerProcess;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A {@link Consumer} follows a stream across server crashes and restarts: it is parked in a
 * long-poll or an SSE feed when the server goes away, and afterwards it has delivered every record
 * exactly once, in order.
 */
class ConsumerResumeTest {

  @TempDir Path dir;

  static Stream<Arguments> cases() {
    return Servers.all()
        .flatMap(
            servers ->
                Stream.of(LiveMode.LONG_POLL, LiveMode.SSE)
                    .map(mode -> Arguments.of(servers, mode)));
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("cases")
  void aTailingConsumerMissesAndRepeatsNothingAcrossAKillAndAStop(Servers servers, LiveMode mode)
      throws Exception {
    try (ServerProcess server = Servers.start(dir, servers.protocol());
        PicoClient client = servers.client(server)) {
      String stream = Servers.freshStream("tail");
      client.create(stream, CreateOptions.builder().contentType("application/json").build());
      appendRange(server, servers, stream, 0, 10);
      List<ReadRecord> delivered = new CopyOnWriteArrayList<>();
      Consumer consumer =
          client.consumer(
              stream,
              ConsumerOptions.fromSeq(0)
                  .live(mode)
                  .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(500)));
      ExecutorService pollingThread = Executors.newSingleThreadExecutor();
      CompletableFuture<Void> following =
          CompletableFuture.runAsync(
              () -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (delivered.size() < 30 && System.nanoTime() < deadline) {
                  delivered.addAll(consumer.poll(Duration.ofMillis(500)).records());
                }
              },
              pollingThread);
      awaitSize(delivered, 10);

      server.kill();
      server.restart();
      appendRange(server, servers, stream, 10, 20);
      awaitSize(delivered, 20);
      server.stop();
      server.restart();
      appendRange(server, servers, stream, 20, 30);

      following.get(150, TimeUnit.SECONDS);
      consumer.close();
      pollingThread.shutdown();
      assertThat(delivered).extracting(ReadRecord::seq).containsExactlyElementsOf(range(0, 30));
      assertThat(delivered)
          .extracting(ReadRecord::bodyAsString)
          .containsExactlyElementsOf(range(0, 30).stream().map(String::valueOf).toList());
    }
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("cases")
  void aConsumerFromTheTailSeesOnlyLaterRecordsAndEndsAtTheClose(Servers servers, LiveMode mode)
      throws Exception {
    try (ServerProcess server = Servers.start(dir, servers.protocol());
        PicoClient client = servers.client(server)) {
      String stream = Servers.freshStream("tail");
      client.create(stream, CreateOptions.builder().contentType("application/json").build());
      client.append(stream, List.of(Record.of("\"before\"")));
      try (Consumer consumer = client.consumer(stream, ConsumerOptions.fromTail().live(mode))) {
        assertThat(consumer.poll(Duration.ofMillis(200)).records()).isEmpty();
        assertThat(consumer.position()).isEqualTo(1);

        client.append(stream, List.of(Record.of("\"after\"")));
        client.close(stream);

        List<ReadRecord> delivered = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!consumer.isClosed() && System.nanoTime() < deadline) {
          ReadResult result = consumer.poll(Duration.ofSeconds(1));
          delivered.addAll(result.records());
        }
        assertThat(delivered).extracting(ReadRecord::seq).containsExactly(1L);
        assertThat(delivered).extracting(ReadRecord::bodyAsString).containsExactly("\"after\"");
        assertThat(consumer.isClosed()).isTrue();
        assertThat(consumer.position()).isEqualTo(2);
        assertThat(consumer.poll(Duration.ofSeconds(1)).closed()).isTrue();
      }
    }
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("cases")
  void bytesStreamsArriveWhole(Servers servers, LiveMode mode) throws Exception {
    try (ServerProcess server = Servers.start(dir, servers.protocol());
        PicoClient client = servers.client(server)) {
      for (String contentType : List.of("application/octet-stream", "text/plain")) {
        String stream = Servers.freshStream("bytes");
        client.create(stream, CreateOptions.builder().contentType(contentType).build());
        byte[] binary = {0, 10, 13, (byte) 0xff, 'x'};
        byte[] text = "line one\nline two".getBytes(StandardCharsets.UTF_8);
        byte[] first = contentType.startsWith("text/") ? text : binary;
        client.append(stream, List.of(Record.of(first), Record.of("end")));
        client.close(stream);

        ByteArrayOutputStream received = new ByteArrayOutputStream();
        try (Consumer consumer = client.consumer(stream, ConsumerOptions.fromSeq(0).live(mode))) {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (!consumer.isClosed() && System.nanoTime() < deadline) {
            consumer
                .poll(Duration.ofSeconds(1))
                .records()
                .forEach(r -> received.writeBytes(r.body()));
          }
          assertThat(consumer.isClosed()).isTrue();
          assertThat(consumer.position()).isEqualTo(2);
        }
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes(first);
        expected.writeBytes("end".getBytes(StandardCharsets.UTF_8));
        assertThat(received.toByteArray()).as(contentType).isEqualTo(expected.toByteArray());
      }
    }
  }

  /**
   * Appends records {@code from..to-1} (bodies are their numbers), retrying while a server starts.
   */
  private static void appendRange(
      ServerProcess server, Servers servers, String stream, int from, int to) throws Exception {
    try (PicoClient writer = servers.client(server)) {
      for (int i = from; i < to; i++) {
        int seq = i;
        // Only a retriable failure (the server still starting) is tried again; a wrong seq fails.
        await("append " + seq)
            .atMost(Duration.ofSeconds(30))
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(50))
            .ignoreExceptionsMatching(e -> e instanceof PicoException p && p.isRetriable())
            .until(
                () -> {
                  assertThat(
                          writer
                              .append(stream, List.of(Record.of(Integer.toString(seq))))
                              .startSeq())
                      .isEqualTo(seq);
                  return true;
                });
      }
    }
  }

  private static void awaitSize(List<?> list, int size) {
    await(size + " records arrived")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> list.size() >= size);
  }

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }
}
