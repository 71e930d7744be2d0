package io.picomq.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.client.AdminClient;
import io.picomq.client.AppendOptions;
import io.picomq.client.AppendResult;
import io.picomq.client.BadRequestException;
import io.picomq.client.ConflictException;
import io.picomq.client.Consumer;
import io.picomq.client.ConsumerOptions;
import io.picomq.client.CreateOptions;
import io.picomq.client.ListPage;
import io.picomq.client.ListRequest;
import io.picomq.client.LiveMode;
import io.picomq.client.PicoClient;
import io.picomq.client.ProducerConflictException;
import io.picomq.client.ProducerId;
import io.picomq.client.Protocol;
import io.picomq.client.ReadRecord;
import io.picomq.client.ReadRequest;
import io.picomq.client.ReadResult;
import io.picomq.client.Record;
import io.picomq.client.SeqMismatchException;
import io.picomq.client.StaleProducerEpochException;
import io.picomq.client.StreamClosedException;
import io.picomq.client.StreamInfo;
import io.picomq.client.StreamNotFoundException;
import io.picomq.client.UnsupportedByProtocolException;
import io.picomq.e2e.ServerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The blocking operations of {@link PicoClient} against real servers, under both protocols over
 * HTTP/1.1 and HTTP/2: what a user relies on (seqs, bodies, flags) and which exception, carrying
 * the server's error code, each refusal becomes.
 */
class ClientCrudTest {

  @TempDir static Path dir;
  private static final Map<Protocol, ServerProcess> SERVERS = new EnumMap<>(Protocol.class);

  @BeforeAll
  static void startServers() {
    for (Protocol protocol : Protocol.values()) {
      SERVERS.put(protocol, Servers.start(dir.resolve(protocol.name()), protocol));
    }
  }

  @AfterAll
  static void stopServers() {
    SERVERS.values().forEach(ServerProcess::close);
  }

  static List<Servers> servers() {
    return Servers.all().toList();
  }

  private static PicoClient client(Servers servers) {
    return servers.client(SERVERS.get(servers.protocol()));
  }

  private static Record text(String body) {
    return Record.of(body);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void createIsIdempotentAndRefusesAnotherContentType(Servers servers) {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("crud");
      CreateOptions json = CreateOptions.builder().contentType("application/json").build();

      StreamInfo created = client.create(stream, json);
      StreamInfo again = client.create(stream, json);

      assertThat(created.name()).isEqualTo(stream);
      assertThat(created.nextSeq()).isZero();
      assertThat(created.contentType()).startsWith("application/json");
      assertThat(again.nextSeq()).isZero();
      assertThatThrownBy(
              () ->
                  client.create(stream, CreateOptions.builder().contentType("text/plain").build()))
          .isInstanceOfSatisfying(
              ConflictException.class,
              e -> {
                assertThat(e.status()).isEqualTo(409);
                assertThat(e.errorCode()).isEqualTo("stream_conflict");
                assertThat(e.body().path("error").asText()).isEqualTo("stream_conflict");
              });
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void appendedJsonMessagesReadBackOneRecordEach(Servers servers) {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("crud");
      client.create(stream, CreateOptions.builder().contentType("application/json").build());

      AppendResult first =
          client.append(stream, List.of(text("{\"n\":0}"), text("{\"n\":1}"), text("[2, 3]")));
      AppendResult second = client.append(stream, List.of(text("\"four\"")));

      assertThat(first.startSeq()).isZero();
      assertThat(first.nextSeq()).isEqualTo(3);
      assertThat(first.duplicate()).isFalse();
      assertThat(second.startSeq()).isEqualTo(3);
      assertThat(second.nextSeq()).isEqualTo(4);
      ReadResult read = client.read(stream, ReadRequest.from(0));
      assertThat(read.records()).extracting(ReadRecord::seq).containsExactly(0L, 1L, 2L, 3L);
      assertThat(read.records())
          .extracting(ReadRecord::bodyAsString)
          .containsExactly("{\"n\":0}", "{\"n\":1}", "[2, 3]", "\"four\"");
      assertThat(read.nextSeq()).isEqualTo(4);
      assertThat(read.upToDate()).isTrue();
      assertThat(read.closed()).isFalse();

      ReadResult fromMiddle = client.read(stream, ReadRequest.from(2).maxRecords(1));
      assertThat(fromMiddle.records()).extracting(ReadRecord::seq).containsExactly(2L);
      assertThat(fromMiddle.nextSeq()).isEqualTo(3);
      assertThat(fromMiddle.upToDate()).isFalse();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void bytesStreamsKeepEveryByte(Servers servers) {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("crud");
      client.create(stream, CreateOptions.defaults());
      byte[] binary = {0, 1, 2, (byte) 0xff, (byte) 0xfe};

      AppendResult appended = client.append(stream, List.of(Record.of(binary), Record.of("tail")));

      assertThat(appended.startSeq()).isZero();
      assertThat(appended.nextSeq()).isEqualTo(2);
      ReadResult read = client.read(stream, ReadRequest.from(0));
      assertThat(read.nextSeq()).isEqualTo(2);
      byte[] all = concat(read.records());
      assertThat(all).isEqualTo(concat(binary, "tail".getBytes(StandardCharsets.UTF_8)));
      assertThat(read.records().getFirst().seq()).isZero();
      StreamInfo head = client.head(stream);
      assertThat(head.nextSeq()).isEqualTo(2);
      assertThat(head.contentType()).isEqualTo("application/octet-stream");
      assertThat(head.closed()).isFalse();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void aClosedStreamRefusesAppendsAndSaysSoToReaders(Servers servers) {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("crud");
      client.create(stream, CreateOptions.builder().contentType("text/plain").build());
      client.append(stream, List.of(text("only")));

      AppendResult sealed = client.close(stream);
      client.close(stream);

      assertThat(sealed.nextSeq()).isEqualTo(1);
      assertThat(client.head(stream).closed()).isTrue();
      assertThatThrownBy(() -> client.append(stream, List.of(text("late"))))
          .isInstanceOfSatisfying(
              StreamClosedException.class,
              e -> {
                assertThat(e.status()).isEqualTo(409);
                assertThat(e.errorCode()).isEqualTo("stream_closed");
              });
      ReadResult read = client.read(stream, ReadRequest.from(0));
      assertThat(read.records()).extracting(ReadRecord::bodyAsString).containsExactly("only");
      assertThat(read.closed()).isTrue();
      ReadResult atEnd = client.read(stream, ReadRequest.from(1).longPoll(true));
      assertThat(atEnd.records()).isEmpty();
      assertThat(atEnd.closed()).isTrue();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void appendingWithCloseSealsInTheSameStep(Servers servers) {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("crud");
      client.create(stream, CreateOptions.builder().contentType("application/json").build());

      AppendResult last =
          client.append(
              stream, List.of(text("1"), text("2")), AppendOptions.defaults().close(true));

      assertThat(last.nextSeq()).isEqualTo(2);
      StreamInfo head = client.head(stream);
      assertThat(head.closed()).isTrue();
      assertThat(head.nextSeq()).isEqualTo(2);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void aDeletedStreamIsNotFound(Servers servers) {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("crud");
      client.create(stream, CreateOptions.defaults());

      client.delete(stream);

      assertThatThrownBy(() -> client.head(stream))
          .isInstanceOfSatisfying(
              StreamNotFoundException.class,
              e -> {
                assertThat(e.status()).isEqualTo(404);
                assertThat(e.errorCode()).isEqualTo("stream_not_found");
              });
      assertThatThrownBy(() -> client.delete(stream))
          .isInstanceOf(StreamNotFoundException.class)
          .extracting(e -> ((StreamNotFoundException) e).errorCode())
          .isEqualTo("stream_not_found");
      assertThatThrownBy(() -> client.read(stream, ReadRequest.from(0)))
          .isInstanceOf(StreamNotFoundException.class);
      assertThatThrownBy(() -> client.append(stream, List.of(text("x"))))
          .isInstanceOf(StreamNotFoundException.class);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void readingPastTheTailIsABadRequest(Servers servers) {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("crud");
      client.create(stream, CreateOptions.defaults());

      assertThatThrownBy(() -> client.read(stream, ReadRequest.from(5)))
          .isInstanceOfSatisfying(
              BadRequestException.class,
              e -> {
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.errorCode())
                    .isEqualTo(
                        servers.protocol() == Protocol.PICO
                            ? "seq_beyond_tail"
                            : "offset_beyond_tail");
              });
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void anIdempotentProducerIsAnsweredDuplicateGapAndFenced(Servers servers) {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("crud");
      client.create(stream, CreateOptions.builder().contentType("text/plain").build());
      ProducerId producer = ProducerId.of("producer-" + servers.http2());

      AppendResult first =
          client.append(
              stream, List.of(text("a")), AppendOptions.defaults().producer(producer, 0, 0));
      AppendResult retry =
          client.append(
              stream, List.of(text("a")), AppendOptions.defaults().producer(producer, 0, 0));

      assertThat(first.duplicate()).isFalse();
      assertThat(first.startSeq()).isZero();
      assertThat(retry.duplicate()).isTrue();
      assertThat(client.head(stream).nextSeq()).isEqualTo(1);
      assertThatThrownBy(
              () ->
                  client.append(
                      stream,
                      List.of(text("c")),
                      AppendOptions.defaults().producer(producer, 0, 2)))
          .isInstanceOfSatisfying(
              ProducerConflictException.class,
              e -> {
                assertThat(e.status()).isEqualTo(409);
                assertThat(e.errorCode()).isEqualTo("producer_seq_gap");
                assertThat(e.expectedSeq()).isEqualTo(1);
                assertThat(e.receivedSeq()).isEqualTo(2);
              });
      client.append(stream, List.of(text("b")), AppendOptions.defaults().producer(producer, 1, 0));
      assertThatThrownBy(
              () ->
                  client.append(
                      stream,
                      List.of(text("z")),
                      AppendOptions.defaults().producer(producer, 0, 1)))
          .isInstanceOfSatisfying(
              StaleProducerEpochException.class,
              e -> {
                assertThat(e.status()).isEqualTo(servers.protocol() == Protocol.PICO ? 409 : 403);
                assertThat(e.errorCode()).isEqualTo("stale_producer_epoch");
              });
      assertThat(client.head(stream).nextSeq()).isEqualTo(2);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void aLongPollFromTheTailWaitsForTheNextAppend(Servers servers) throws Exception {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("crud");
      client.create(stream, CreateOptions.builder().contentType("application/json").build());
      client.append(stream, List.of(text("\"old\"")));

      CompletableFuture<ReadResult> waiting =
          CompletableFuture.supplyAsync(
              () -> {
                ReadResult result;
                do {
                  result = client.read(stream, ReadRequest.from(1).longPoll(true));
                } while (result.records().isEmpty());
                return result;
              });
      client.append(stream, List.of(text("\"new\"")));

      ReadResult result = waiting.get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(result.records()).extracting(ReadRecord::seq).containsExactly(1L);
      assertThat(result.records()).extracting(ReadRecord::bodyAsString).containsExactly("\"new\"");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void picoOnlyOperations(Servers servers) {
    try (PicoClient client = client(servers)) {
      String prefix = Servers.freshStream("ls");
      if (servers.protocol() == Protocol.DURABLE_STREAMS) {
        assertThatThrownBy(() -> client.list(ListRequest.prefix(prefix)))
            .isInstanceOfSatisfying(
                UnsupportedByProtocolException.class,
                e -> assertThat(e.errorCode()).isEqualTo("unsupported_by_protocol"));
        assertThatThrownBy(() -> client.trim(prefix, 1))
            .isInstanceOf(UnsupportedByProtocolException.class);
        assertThatThrownBy(
                () -> client.append(prefix, List.of(Record.of(Map.of("k", "v"), new byte[] {1}))))
            .isInstanceOf(UnsupportedByProtocolException.class);
        assertThatThrownBy(
                () ->
                    client.append(prefix, List.of(text("x")), AppendOptions.defaults().matchSeq(0)))
            .isInstanceOf(UnsupportedByProtocolException.class);
        return;
      }
      for (String name : List.of("a", "b", "c")) {
        client.create(prefix + "/" + name, CreateOptions.defaults());
      }
      ListPage page = client.list(ListRequest.prefix(prefix + "/").limit(2));
      assertThat(page.streams())
          .extracting(StreamInfo::name)
          .containsExactly(prefix + "/a", prefix + "/b");
      assertThat(page.hasMore()).isTrue();
      ListPage rest =
          client.list(ListRequest.prefix(prefix + "/").limit(2).startAfter(prefix + "/b"));
      assertThat(rest.streams()).extracting(StreamInfo::name).containsExactly(prefix + "/c");
      assertThat(rest.hasMore()).isFalse();

      String stream = prefix + "/a";
      client.append(
          stream,
          List.of(
              Record.of(Map.of("kind", "first"), new byte[] {1}),
              Record.of(Map.of(), new byte[] {2}),
              Record.of(new byte[] {3})));
      ReadResult read = client.read(stream, ReadRequest.from(0));
      assertThat(read.records().getFirst().headers()).containsExactly(Map.entry("kind", "first"));
      assertThat(read.records().getFirst().timestampMillis()).isPositive();
      assertThatThrownBy(
              () -> client.append(stream, List.of(text("x")), AppendOptions.defaults().matchSeq(1)))
          .isInstanceOfSatisfying(
              SeqMismatchException.class,
              e -> {
                assertThat(e.errorCode()).isEqualTo("seq_mismatch");
                assertThat(e.nextSeq()).isEqualTo(3);
              });
      assertThat(
              client
                  .append(stream, List.of(text("x")), AppendOptions.defaults().matchSeq(3))
                  .startSeq())
          .isEqualTo(3);

      client.trim(stream, 2);

      assertThat(client.head(stream).startSeq()).isEqualTo(2);
      assertThat(client.read(stream, ReadRequest.from(0)).records())
          .extracting(ReadRecord::seq)
          .containsExactly(2L, 3L);
      assertThatThrownBy(() -> client.trim(stream, 99))
          .isInstanceOfSatisfying(
              BadRequestException.class,
              e -> assertThat(e.errorCode()).isEqualTo("trim_beyond_tail"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void streamsWithTtlReportIt(Servers servers) {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("ttl");
      client.create(stream, CreateOptions.builder().ttl(Duration.ofHours(1)).build());

      StreamInfo head = client.head(stream);

      assertThat(head.ttl()).contains(Duration.ofHours(1));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void concurrentAppendsThroughOneClientEachGetTheirOwnSeqs(Servers servers) throws Exception {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("concurrent");
      client.create(stream, CreateOptions.builder().contentType("application/json").build());
      int threads = 16;
      int perThread = 25;
      java.util.concurrent.ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<List<Long>>> results = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        results.add(
            pool.submit(
                () -> {
                  List<Long> seqs = new java.util.ArrayList<>();
                  for (int i = 0; i < perThread; i++) {
                    seqs.add(client.append(stream, List.of(text("0"))).startSeq());
                  }
                  return seqs;
                }));
      }
      java.util.Set<Long> seqs = new java.util.TreeSet<>();
      for (Future<List<Long>> result : results) {
        seqs.addAll(result.get(120, java.util.concurrent.TimeUnit.SECONDS));
      }
      pool.shutdown();

      assertThat(seqs).hasSize(threads * perThread).first().isEqualTo(0L);
      assertThat(client.head(stream).nextSeq()).isEqualTo(threads * perThread);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void aConsumerWithoutLiveModeReadsToTheEndAndReturns(Servers servers) {
    try (PicoClient client = client(servers)) {
      String stream = Servers.freshStream("none");
      client.create(stream, CreateOptions.builder().contentType("application/json").build());
      client.append(stream, List.of(text("1"), text("2"), text("3")));
      try (Consumer consumer =
          client.consumer(stream, ConsumerOptions.fromSeq(1).live(LiveMode.NONE).maxRecords(1))) {
        List<Long> seen = new java.util.ArrayList<>();
        ReadResult result;
        do {
          result = consumer.poll(Duration.ZERO);
          result.records().forEach(r -> seen.add(r.seq()));
        } while (!result.upToDate());

        assertThat(seen).containsExactly(1L, 2L);
        assertThat(consumer.position()).isEqualTo(3);
        assertThat(consumer.poll(Duration.ZERO).records()).isEmpty();
        client.close(stream);
        assertThat(consumer.poll(Duration.ZERO).closed()).isTrue();
        assertThat(consumer.isClosed()).isTrue();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servers")
  void theAdminApiAnswersJson(Servers servers) {
    ServerProcess server = SERVERS.get(servers.protocol());
    try (PicoClient client = client(servers);
        AdminClient admin = client.admin(server.adminEndpoint())) {
      String stream = Servers.freshStream("admin");
      client.create(stream, CreateOptions.defaults());

      assertThat(admin.nodes().path("nodes")).hasSize(1);
      long nodeId = admin.cluster().path("nodeId").asLong();
      assertThat(admin.nodes().path("nodes").get(0).path("nodeId").asLong()).isEqualTo(nodeId);
      assertThat(admin.stream(stream).isObject()).isTrue();
      assertThatThrownBy(() -> admin.stream("/no/such/stream"))
          .isInstanceOfSatisfying(
              StreamNotFoundException.class,
              e -> assertThat(e.errorCode()).isEqualTo("stream_not_found"));
      assertThatThrownBy(() -> admin.transfer(stream, nodeId))
          .isInstanceOfSatisfying(
              ConflictException.class, e -> assertThat(e.errorCode()).isEqualTo("already_on_node"));
    }
  }

  private static byte[] concat(List<ReadRecord> records) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    records.forEach(r -> out.writeBytes(r.body()));
    return out.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = new byte[a.length + b.length];
    System.arraycopy(a, 0, both, 0, a.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }
}
