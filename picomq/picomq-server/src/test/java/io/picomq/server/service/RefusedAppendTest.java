package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.objectstore.s3.S3ProxyServer;
import io.picomq.sql.backend.BackendOptions;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ProducerTag;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.StreamRecord;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acknowledged means readable, at the reported position, after any refused or failed append: the
 * next acknowledged append's seq is where a read finds its record, and it is readable at once. Real
 * parts: S3Proxy behind a relay that stalls like a stopped server, SQLite metadata; the entry
 * writes fail on cue for the metadata case.
 */
class RefusedAppendTest {
  private static final int RECORD_BYTES = 256 << 10;

  private static S3ProxyServer s3;
  @TempDir Path dir;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3ProxyServer.start();
  }

  @AfterAll
  static void stopS3() throws Exception {
    s3.close();
  }

  @Test
  void afterAppendsRefusedForCapacityEveryAckIsWhereItsRecordIs() throws Exception {
    try (PausableTcpProxy proxy = PausableTcpProxy.start(s3.endpoint().getPort());
        NodeFixture node = node(proxy, new AtomicReference<>())) {
      node.service.create("/s", CreateRequest.of("application/octet-stream")).join();
      // Writers append one record at a time, as HTTP clients do, through a stall of the WAL's
      // PUTs: the log cache fills, appends wait and are refused, and after the stall the ones
      // accepted before it complete while new ones arrive. Their appends in flight alone (24 x
      // 256 KiB) exceed the 4 MiB cache: with fewer, whether it fills during the stall depended on
      // how much an upload just before it had freed.
      AtomicInteger ids = new AtomicInteger();
      AtomicInteger refused = new AtomicInteger();
      Map<Integer, AppendVerdict> acked = new ConcurrentHashMap<>();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 24; w++) {
        writers.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      while (!stop.get()) {
                        int id = ids.getAndIncrement();
                        try {
                          acked.put(
                              id,
                              node.service
                                  .append("/s", AppendRequest.of(List.of(record(id))))
                                  .join());
                        } catch (CompletionException e) {
                          refused.incrementAndGet();
                        }
                      }
                    }));
      }
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> acked.size() >= 8);
      proxy.pause();
      try {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> refused.get() >= 1);
      } finally {
        proxy.resume();
      }
      int ackedAtResume = acked.size();
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> acked.size() >= ackedAtResume + 32);
      stop.set(true);
      for (Thread writer : writers) {
        writer.join(Duration.ofSeconds(60));
      }

      assertThat(refused.get()).isPositive();
      for (Map.Entry<Integer, AppendVerdict> ack : acked.entrySet()) {
        assertFoundAtItsSeq(node, "/s", ack.getValue(), ack.getKey());
      }
      int last = ids.getAndIncrement();
      assertFoundAtItsSeq(
          node,
          "/s",
          node.service.append("/s", AppendRequest.of(List.of(record(last)))).join(),
          last);
    }
  }

  @Test
  void afterAFailedEntryWriteTheNextAckIsWhereItsRecordIs() throws Exception {
    AtomicReference<EntryFault> fault = new AtomicReference<>();
    try (PausableTcpProxy proxy = PausableTcpProxy.start(s3.endpoint().getPort());
        NodeFixture node = node(proxy, fault)) {
      node.service.create("/m", CreateRequest.of("application/octet-stream")).join();
      assertFoundAtItsSeq(node, "/m", node.service.append("/m", produce(0)).join(), 0);
      fault.get().set(EntryFault.Mode.FAIL);
      assertThat(node.service.append("/m", produce(1))).failsWithin(Duration.ofSeconds(10));
      fault.get().set(EntryFault.Mode.PASS);
      // seq 1's records are durable though its answer failed: the retry is a duplicate, and the
      // next producer seq lands right after it.
      assertThat(node.service.append("/m", produce(1)).join())
          .isInstanceOf(AppendVerdict.Duplicate.class);
      assertFoundAtItsSeq(node, "/m", node.service.append("/m", produce(2)).join(), 2);
    }
  }

  @Test
  void afterAStorageStallTheNextAckIsWhereItsRecordIs() throws Exception {
    try (PausableTcpProxy proxy = PausableTcpProxy.start(s3.endpoint().getPort());
        NodeFixture node = node(proxy, new AtomicReference<>())) {
      node.service.create("/t", CreateRequest.of("application/octet-stream")).join();
      assertFoundAtItsSeq(
          node, "/t", node.service.append("/t", AppendRequest.of(List.of(record(0)))).join(), 0);
      proxy.pause();
      CompletableFuture<AppendVerdict> stalled;
      try {
        stalled = node.service.append("/t", AppendRequest.of(List.of(record(1))));
        assertThat(stalled).isNotDone();
      } finally {
        proxy.resume();
      }
      assertFoundAtItsSeq(node, "/t", stalled.get(60, TimeUnit.SECONDS), 1);
      assertFoundAtItsSeq(
          node, "/t", node.service.append("/t", AppendRequest.of(List.of(record(2)))).join(), 2);
    }
  }

  /** The acknowledged record {@code id} is readable at once at the seq its answer reported. */
  private static void assertFoundAtItsSeq(
      NodeFixture node, String name, AppendVerdict outcome, int id) {
    assertThat(outcome).isInstanceOf(AppendVerdict.Accepted.class);
    AppendVerdict.Accepted accepted = (AppendVerdict.Accepted) outcome;
    ReadOutcome read =
        node.service.read(name, new ReadWindow(accepted.startSeq(), 1, Long.MAX_VALUE)).join();
    assertThat(read).isInstanceOf(ReadOutcome.Batch.class);
    ReadOutcome.Batch batch = (ReadOutcome.Batch) read;
    assertThat(batch.stream().nextSeq())
        .as("readable at once")
        .isGreaterThanOrEqualTo(accepted.nextSeq());
    assertThat(batch.records()).hasSize(1);
    StreamRecord found = batch.records().getFirst();
    assertThat(found.seq()).isEqualTo(accepted.startSeq());
    assertThat(idOf(found.body())).as("the record at seq " + accepted.startSeq()).isEqualTo(id);
  }

  private static NewRecord record(int id) {
    byte[] body = new byte[RECORD_BYTES];
    Arrays.fill(body, (byte) 'x');
    byte[] label = (id + ":").getBytes(UTF_8);
    System.arraycopy(label, 0, body, 0, label.length);
    return NewRecord.of(body);
  }

  private static int idOf(byte[] body) {
    String text = new String(body, 0, 16, UTF_8);
    return Integer.parseInt(text.substring(0, text.indexOf(':')));
  }

  private static AppendRequest produce(long seq) {
    return new AppendRequest(
        List.of(record((int) seq)),
        Optional.empty(),
        Optional.of(new ProducerTag("producer", 0, seq)),
        Optional.empty(),
        OptionalLong.empty(),
        false);
  }

  private NodeFixture node(PausableTcpProxy proxy, AtomicReference<EntryFault> fault)
      throws Exception {
    String bucket = "b" + System.nanoTime();
    s3.createBucket(bucket);
    return new NodeFixture(
        "sqlite:" + dir.resolve("meta.db"),
        BackendOptions.defaults(),
        1,
        Clock.systemUTC(),
        real -> {
          EntryFault wrapped = new EntryFault(real);
          fault.set(wrapped);
          return wrapped;
        },
        engine -> engine,
        new NodeFixture.Storage(
            "0@s3://"
                + bucket
                + "?region=us-east-1&pathStyle=true&endpoint=http://127.0.0.1:"
                + proxy.port(),
            c -> c.walCacheSizeBytes(4 * EngineConfig.MIB).appendWaitMillis(300),
            S3ProxyServer.ACCESS_KEY,
            S3ProxyServer.SECRET_KEY));
  }
}
