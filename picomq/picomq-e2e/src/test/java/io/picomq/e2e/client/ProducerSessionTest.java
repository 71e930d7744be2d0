package io.picomq.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.client.AppendResult;
import io.picomq.client.CreateOptions;
import io.picomq.client.PicoClient;
import io.picomq.client.ProducerOptions;
import io.picomq.client.ProducerSession;
import io.picomq.client.ReadRecord;
import io.picomq.client.ReadRequest;
import io.picomq.client.ReadResult;
import io.picomq.client.Record;
import io.picomq.client.StreamClosedException;
import io.picomq.e2e.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The idempotent {@link ProducerSession} against real servers: records complete in order with their
 * own seqs, and a server restart in the middle of a run neither loses nor duplicates a record,
 * because every resend carries the same producer stamp and bytes.
 */
class ProducerSessionTest {

  @TempDir Path dir;

  static List<Servers> servers() {
    return Servers.all().toList();
  }

  private static ProducerOptions pipelined() {
    return ProducerOptions.builder()
        .linger(Duration.ofMillis(2))
        .maxBatchRecords(50)
        .maxInFlightRequests(8)
        .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(500))
        .build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void recordsCompleteInOrderWithTheirOwnSeqs(Servers servers) throws Exception {
    try (ServerProcess server = Servers.start(dir, servers.protocol());
        PicoClient client = servers.client(server)) {
      String stream = Servers.freshStream("producer");
      client.create(stream, CreateOptions.builder().contentType("application/json").build());
      int count = 2_000;
      List<CompletableFuture<AppendResult>> sent = new ArrayList<>();
      List<Long> completionOrder = java.util.Collections.synchronizedList(new ArrayList<>());

      try (ProducerSession producer = client.producer(stream, pipelined())) {
        for (int i = 0; i < count; i++) {
          CompletableFuture<AppendResult> future = producer.send(Record.of(Integer.toString(i)));
          future.thenAccept(r -> completionOrder.add(r.startSeq()));
          sent.add(future);
        }
        producer.flush();
      }

      for (int i = 0; i < count; i++) {
        AppendResult result = sent.get(i).get(0, TimeUnit.SECONDS);
        assertThat(result.startSeq()).isEqualTo(i);
        assertThat(result.nextSeq()).isEqualTo(i + 1);
      }
      assertThat(completionOrder).isSorted().hasSize(count);
      assertExactly(client, stream, count);
    }
  }

  /**
   * The server is stopped while records are being sent and started again: the session keeps
   * resending (same stamps, same bytes) until it is back, and the stream ends up holding each
   * record once.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void aGracefulRestartInTheMiddleLosesAndDuplicatesNothing(Servers servers) throws Exception {
    try (ServerProcess server = Servers.start(dir, servers.protocol());
        PicoClient client = servers.client(server)) {
      String stream = Servers.freshStream("producer");
      client.create(stream, CreateOptions.builder().contentType("application/json").build());
      int count = 3_000;
      List<CompletableFuture<AppendResult>> sent = new ArrayList<>();
      try (ProducerSession producer = client.producer(stream, pipelined())) {
        for (int i = 0; i < count; i++) {
          sent.add(producer.send(Record.of(Integer.toString(i))));
          if (i == count / 3) {
            sent.get(i).get(60, TimeUnit.SECONDS);
            server.stop();
          }
          if (i == 2 * count / 3) {
            server.restart();
          }
        }
        producer.flush();
      }

      for (int i = 0; i < count; i++) {
        // A resend the server had already taken is answered duplicate, without the record's seq.
        AppendResult result = sent.get(i).get(0, TimeUnit.SECONDS);
        if (!result.duplicate()) {
          assertThat(result.startSeq()).isEqualTo(i);
        }
      }
      assertExactly(client, stream, count);
    }
  }

  /**
   * The same with SIGKILL instead of a graceful stop, killed with records both durable and in
   * flight. Every batch carries its producer stamp into the engine, and a load replays the stamps
   * past its entry (see {@code ProducerCrashTest}), so a resend of a batch that became durable just
   * before the kill is answered duplicate rather than written again.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aKillInTheMiddleLosesAndDuplicatesNothing(Servers servers) throws Exception {
    try (ServerProcess server = Servers.start(dir, servers.protocol());
        PicoClient client = servers.client(server)) {
      String stream = Servers.freshStream("producer");
      client.create(stream, CreateOptions.builder().contentType("application/json").build());
      int count = 3_000;
      List<CompletableFuture<AppendResult>> sent = new ArrayList<>();
      try (ProducerSession producer = client.producer(stream, pipelined())) {
        for (int i = 0; i < count; i++) {
          sent.add(producer.send(Record.of(Integer.toString(i))));
          if (i == count / 2) {
            // The kill lands with records both durable and in flight.
            sent.get(count / 4).get(60, TimeUnit.SECONDS);
            server.kill();
            server.restart();
          }
        }
        producer.flush();
      }

      for (CompletableFuture<AppendResult> future : sent) {
        assertThat(future).isCompleted();
      }
      assertExactly(client, stream, count);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void aSealedStreamFailsTheRestAndBreaksTheSession(Servers servers) throws Exception {
    try (ServerProcess server = Servers.start(dir, servers.protocol());
        PicoClient client = servers.client(server)) {
      String stream = Servers.freshStream("producer");
      client.create(stream, CreateOptions.builder().contentType("application/json").build());
      ProducerSession producer = client.producer(stream, pipelined());
      producer.send(Record.of("0")).get(30, TimeUnit.SECONDS);

      client.close(stream);
      CompletableFuture<AppendResult> late = producer.send(Record.of("1"));

      assertThatThrownBy(() -> late.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              StreamClosedException.class,
              e -> assertThat(e.errorCode()).isEqualTo("stream_closed"));
      assertThatThrownBy(() -> producer.send(Record.of("2")))
          .isInstanceOf(IllegalStateException.class);
      producer.close();
      assertExactly(client, stream, 1);
    }
  }

  /** The stream holds exactly the records "0".."count-1", once each, in order. */
  static void assertExactly(PicoClient client, String stream, int count) {
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
        .extracting(ReadRecord::bodyAsString)
        .containsExactlyElementsOf(LongStream.range(0, count).mapToObj(Long::toString).toList());
    assertThat(records)
        .extracting(ReadRecord::seq)
        .containsExactlyElementsOf(LongStream.range(0, count).boxed().toList());
  }
}
