package io.picomq.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.client.AppendOptions;
import io.picomq.client.AppendResult;
import io.picomq.client.Consumer;
import io.picomq.client.ConsumerOptions;
import io.picomq.client.CreateOptions;
import io.picomq.client.LiveMode;
import io.picomq.client.PicoClient;
import io.picomq.client.ProducerOptions;
import io.picomq.client.ProducerSession;
import io.picomq.client.Protocol;
import io.picomq.client.ReadRecord;
import io.picomq.client.ReadRequest;
import io.picomq.client.ReadResult;
import io.picomq.client.Record;
import io.picomq.client.SeqMismatchException;
import io.picomq.client.StreamNotFoundException;
import io.picomq.e2e.ServerProcess;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The examples of the docs page {@code website/pages/docs/client-sdk.md}, which imports the regions
 * marked here: they compile, and they run against a real server.
 */
class SdkExamplesTest {

  @TempDir Path dir;

  @Test
  void quickTour() {
    try (ServerProcess server = Servers.start(dir, Protocol.PICO)) {
      URI endpoint = server.endpoint();
      // #region tour
      try (PicoClient client = PicoClient.builder().endpoint(endpoint).build()) {
        client.create(
            "/orders/eu", CreateOptions.builder().contentType("application/json").build());

        AppendResult appended =
            client.append(
                "/orders/eu",
                List.of(
                    Record.of("{\"id\": 1}"),
                    Record.of(
                        Map.of("source", "web"), "{\"id\": 2}".getBytes(StandardCharsets.UTF_8))));
        // appended.startSeq() == 0, appended.nextSeq() == 2: one atomic batch

        ReadResult read = client.read("/orders/eu", ReadRequest.from(0).maxRecords(100));
        for (ReadRecord record : read.records()) {
          System.out.println(record.seq() + " " + record.headers() + " " + record.bodyAsString());
        }
        // #endregion tour
        assertThat(appended.nextSeq()).isEqualTo(2);
        assertThat(read.records()).extracting(ReadRecord::seq).containsExactly(0L, 1L);
        // #region conditional
        try {
          client.append(
              "/orders/eu",
              List.of(Record.of("{\"id\": 3}")),
              AppendOptions.defaults().matchSeq(0));
        } catch (SeqMismatchException e) {
          System.out.println("someone else appended; the tail is at " + e.nextSeq());
        }
        // #endregion conditional
        // #region errors
        try {
          client.head("/orders/nowhere");
        } catch (StreamNotFoundException e) {
          System.out.println(e.status() + " " + e.errorCode() + ": " + e.message());
          // 404 stream_not_found: no stream /orders/nowhere
        }
        // #endregion errors
      }
    }
  }

  @Test
  void followAStream() throws Exception {
    try (ServerProcess server = Servers.start(dir, Protocol.PICO);
        PicoClient client = PicoClient.builder().endpoint(server.endpoint()).build()) {
      client.create("/chat/42", CreateOptions.builder().contentType("text/plain").build());
      client.append("/chat/42", List.of(Record.of("hello"), Record.of("bye")));
      client.close("/chat/42");
      List<String> seen = new ArrayList<>();
      // #region consumer
      try (Consumer consumer =
          client.consumer("/chat/42", ConsumerOptions.fromSeq(0).live(LiveMode.SSE))) {
        while (!consumer.isClosed()) {
          ReadResult batch = consumer.poll(Duration.ofSeconds(5));
          for (ReadRecord record : batch.records()) {
            seen.add(record.bodyAsString());
          }
          // Save consumer.position() to resume from there after a restart of this program.
        }
      }
      // #endregion consumer
      assertThat(seen).containsExactly("hello", "bye");
    }
  }

  @Test
  void produceIdempotently() throws Exception {
    try (ServerProcess server = Servers.start(dir, Protocol.PICO);
        PicoClient client = PicoClient.builder().endpoint(server.endpoint()).build()) {
      client.create("/metrics", CreateOptions.defaults());
      // #region producer
      ProducerOptions options =
          ProducerOptions.builder()
              .producerId("ingest-7")
              .epoch(3) // a restarted instance of ingest-7 takes a higher epoch
              .linger(Duration.ofMillis(5))
              .maxInFlightRequests(8)
              .build();
      try (ProducerSession producer = client.producer("/metrics", options)) {
        List<CompletableFuture<AppendResult>> acks = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
          acks.add(producer.send(Record.of("sample " + i)));
        }
        producer.flush(); // every ack above is now complete, in order
        System.out.println("last seq " + acks.getLast().join().startSeq());
      }
      // #endregion producer
      assertThat(client.head("/metrics").nextSeq()).isEqualTo(10_000);
    }
  }

  @Test
  void durableStreams() {
    try (ServerProcess server = Servers.start(dir, Protocol.DURABLE_STREAMS)) {
      URI endpoint = server.endpoint();
      // #region durable-streams
      try (PicoClient client =
          PicoClient.builder()
              .endpoint(endpoint) // streams live under endpoint + /v1/stream/...
              .protocol(Protocol.DURABLE_STREAMS)
              .http2(true)
              .build()) {
        client.create("/chat/7", CreateOptions.builder().contentType("application/json").build());
        client.append("/chat/7", List.of(Record.of("{\"text\": \"hi\"}"), Record.of("[1, 2]")));
        ReadResult read = client.read("/chat/7", ReadRequest.from(0));
        // JSON streams keep message boundaries: two records, seqs 0 and 1
        // #endregion durable-streams
        assertThat(read.records())
            .extracting(ReadRecord::bodyAsString)
            .containsExactly("{\"text\": \"hi\"}", "[1, 2]");
      }
    }
  }
}
