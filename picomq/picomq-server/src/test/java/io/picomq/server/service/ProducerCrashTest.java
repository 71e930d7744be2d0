package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.StreamEntry;
import io.picomq.sql.backend.BackendOptions;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ProducerTag;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.StreamService;
import io.picomq.stream.StreamUnavailableException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node dies between an append's durability and the registry entry write that records its effect
 * (producer seq, writer seq, seal): the effect is not lost, because the batch carries it. A retry
 * is a duplicate exactly when its records are in the stream. Real SQLite and file:// storage; the
 * only fake is the cue that holds or fails entry writes.
 */
class ProducerCrashTest {
  @TempDir Path dir;

  @Test
  void aRetryAfterACrashBetweenDurabilityAndTheEntryWriteIsADuplicate() throws Exception {
    AtomicReference<EntryFault> fault = new AtomicReference<>();
    NodeFixture first = node(dir, 1, fault);
    first.service.create("/p", CreateRequest.of("text/plain")).join();
    assertThat(first.service.append("/p", produce(0)).join())
        .isInstanceOf(AppendVerdict.Accepted.class);
    fault.get().set(EntryFault.Mode.HOLD);
    List<CompletableFuture<AppendVerdict>> unanswered = new ArrayList<>();
    for (int seq = 1; seq <= 3; seq++) {
      unanswered.add(first.service.append("/p", produce(seq)));
    }
    awaitTail(first.service, "/p", 4);
    assertThat(unanswered).noneMatch(CompletableFuture::isDone);
    first.abandon();

    try (NodeFixture second = node(dir, 2, new AtomicReference<>())) {
      assertThat(bodies(second.service, "/p")).containsExactly("p0", "p1", "p2", "p3");
      for (int seq = 1; seq <= 3; seq++) {
        assertThat(second.service.append("/p", produce(seq)).join())
            .isEqualTo(new AppendVerdict.Duplicate(3, 4, false));
      }
      assertThat(second.service.append("/p", produce(6)).join())
          .isEqualTo(new AppendVerdict.SeqGap(4, 6));
      AppendVerdict.Accepted next =
          (AppendVerdict.Accepted) second.service.append("/p", produce(4)).join();
      assertThat(next.startSeq()).isEqualTo(4);
      assertThat(bodies(second.service, "/p")).containsExactly("p0", "p1", "p2", "p3", "p4");
    }
    // The rebuilt state was written through: a third node needs no replay to agree.
    try (NodeFixture third = node(dir, 3, new AtomicReference<>())) {
      assertThat(third.service.append("/p", produce(4)).join())
          .isEqualTo(new AppendVerdict.Duplicate(4, 5, false));
    }
  }

  /**
   * A retry that overtakes its original (the client timed out while the first try was still on its
   * way to the WAL) must not be answered duplicate before the original is durable: if the node then
   * dies, the record is gone, and a client told "duplicate" would count it as written.
   */
  @Test
  void aRetryOfAnAppendStillInFlightWaitsForIt() throws Exception {
    AtomicReference<HeldAppends> engine = new AtomicReference<>();
    NodeFixture first = heldNode(dir, engine);
    first.service.create("/o", CreateRequest.of("text/plain")).join();
    assertThat(first.service.append("/o", produce(0)).join())
        .isInstanceOf(AppendVerdict.Accepted.class);
    engine.get().hold();
    CompletableFuture<AppendVerdict> original = first.service.append("/o", produce(1));
    CompletableFuture<AppendVerdict> retry = first.service.append("/o", produce(1));
    // The input, not a wait for an effect: a window in which an early duplicate answer would come.
    await("the retry still unanswered")
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !retry.isDone() && !original.isDone());
    first.abandon();

    try (NodeFixture second = node(dir, 2, new AtomicReference<>())) {
      assertThat(bodies(second.service, "/o")).containsExactly("p0");
      AppendVerdict.Accepted resent =
          (AppendVerdict.Accepted) second.service.append("/o", produce(1)).join();
      assertThat(resent.startSeq()).isEqualTo(1);
      assertThat(bodies(second.service, "/o")).containsExactly("p0", "p1");
    }
  }

  /**
   * A transfer's handoff on the source: appends it took are durable, the stream is closed in the
   * log at its epoch, appends to the old instance are refused, and whoever opens the stream next
   * answers a producer's retry as a duplicate (producer state moves with the stream).
   */
  @Test
  void aHandoffClosesTheStreamWithWhatItTookAndProducerStateMovesWithIt() throws Exception {
    NodeFixture first = node(dir, 1, new AtomicReference<>());
    first.service.create("/h", CreateRequest.of("text/plain")).join();
    CompletableFuture<AppendVerdict> zero = first.service.append("/h", produce(0));
    CompletableFuture<AppendVerdict> one = first.service.append("/h", produce(1));
    long streamId = stored(first, "/h").streamId();
    first.plane.proposeAccepted(new Command.RegisterNode(2, 1, "http://127.0.0.1:1", 1)).join();
    first.plane.proposeAccepted(new Command.TransferStream(streamId, 2)).join();

    long epoch = first.service.handOff(streamId);

    assertThat(zero.join()).isInstanceOf(AppendVerdict.Accepted.class);
    assertThat(one.join()).isInstanceOf(AppendVerdict.Accepted.class);
    StreamEntry closed = first.plane.state().stream(streamId).orElseThrow();
    assertThat(closed.isOpen()).isFalse();
    assertThat(closed.epoch()).isEqualTo(epoch);
    assertThat(closed.endOffset()).isEqualTo(2);
    // While the transfer is pending, this node cannot take the stream back.
    assertThatThrownBy(() -> first.service.append("/h", produce(2)).join())
        .hasCauseInstanceOf(StreamUnavailableException.class);
    assertThat(first.plane.proposeAccepted(new Command.CompleteTransfer(streamId, epoch)).join())
        .isEqualTo(new Outcome.TransferCompleted(streamId, 2, epoch));
    first.abandon();

    try (NodeFixture next = node(dir, 2, new AtomicReference<>())) {
      assertThat(next.service.append("/h", produce(1)).join())
          .isEqualTo(new AppendVerdict.Duplicate(1, 2, false));
      assertThat(bodies(next.service, "/h")).containsExactly("p0", "p1");
    }
  }

  /**
   * The source writes the entry at the tail it handed off, with the last record's timestamp: the
   * target opens the stream without reading it (no stamps to replay, no last record to fetch from
   * an object it never read), and still keeps timestamps monotonic and producer state.
   */
  @Test
  void aHandedOffStreamLoadsOnItsTargetWithoutReadingIt() throws Exception {
    NodeFixture first = node(dir, 1, new AtomicReference<>());
    first.service.create("/m", CreateRequest.of("text/plain")).join();
    AppendVerdict.Accepted produced =
        (AppendVerdict.Accepted) first.service.append("/m", produce(0)).join();
    // Plain appends write no entry: without the handoff's write the target would replay them.
    AppendVerdict.Accepted last = null;
    for (int i = 0; i < 5; i++) {
      last =
          (AppendVerdict.Accepted)
              first
                  .service
                  .append("/m", AppendRequest.of(List.of(NewRecord.of(("x" + i).getBytes(UTF_8)))))
                  .join();
    }
    long streamId = stored(first, "/m").streamId();
    assertThat(stored(first, "/m").stampedThrough()).isEqualTo(produced.nextSeq());
    first.plane.proposeAccepted(new Command.RegisterNode(2, 1, "http://127.0.0.1:1", 1)).join();
    first.plane.proposeAccepted(new Command.TransferStream(streamId, 2)).join();

    long epoch = first.service.handOff(streamId);

    Registration handedOff = stored(first, "/m");
    assertThat(handedOff.stampedThrough()).isEqualTo(6);
    assertThat(handedOff.tailTimestampAt(6)).contains(last.timestampMillis());
    first.plane.proposeAccepted(new Command.CompleteTransfer(streamId, epoch)).join();
    first.abandon();

    AtomicReference<HeldAppends> engine = new AtomicReference<>();
    try (NodeFixture next = heldNode(dir, 2, engine)) {
      assertThat(next.service.append("/m", produce(0)).join())
          .isEqualTo(new AppendVerdict.Duplicate(0, 6, false));
      AppendVerdict.Accepted after =
          (AppendVerdict.Accepted) next.service.append("/m", produce(1)).join();
      assertThat(engine.get().fetches).hasValue(0);
      assertThat(after.startSeq()).isEqualTo(6);
      assertThat(after.timestampMillis()).isGreaterThanOrEqualTo(last.timestampMillis());
    }
  }

  @Test
  void aWriterSeqAndASealInTheWindowSurviveTheCrash() throws Exception {
    AtomicReference<EntryFault> fault = new AtomicReference<>();
    NodeFixture first = node(dir, 1, fault);
    first.service.create("/w", CreateRequest.of("text/plain")).join();
    first.service.create("/c", CreateRequest.of("text/plain")).join();
    assertThat(first.service.append("/w", writer("a")).join())
        .isInstanceOf(AppendVerdict.Accepted.class);
    fault.get().set(EntryFault.Mode.HOLD);
    first.service.append("/w", writer("b"));
    first.service.append("/c", sealing("last"));
    awaitTail(first.service, "/w", 2);
    awaitTail(first.service, "/c", 1);
    first.abandon();

    try (NodeFixture second = node(dir, 2, new AtomicReference<>())) {
      assertThat(second.service.append("/w", writer("b")).join())
          .isEqualTo(new AppendVerdict.WriterSeqRegression("b", "b"));
      assertThat(bodies(second.service, "/w")).containsExactly("a", "b");
      assertThat(second.service.append("/c", sealing("last")).join())
          .isEqualTo(new AppendVerdict.Closed(1));
      assertThat(bodies(second.service, "/c")).containsExactly("last");
    }
  }

  @Test
  void aFailedEntryWriteIsAnErrorAndItsRetryADuplicate() throws Exception {
    AtomicReference<EntryFault> fault = new AtomicReference<>();
    NodeFixture first = node(dir, 1, fault);
    first.service.create("/f", CreateRequest.of("text/plain")).join();
    fault.get().set(EntryFault.Mode.FAIL);
    assertThatThrownBy(() -> first.service.append("/f", produce(0)).join())
        .hasMessageContaining("injected");
    fault.get().set(EntryFault.Mode.PASS);
    assertThat(first.service.append("/f", produce(0)).join())
        .isEqualTo(new AppendVerdict.Duplicate(0, 1, false));
    first.abandon();
    try (NodeFixture second = node(dir, 2, new AtomicReference<>())) {
      assertThat(second.service.append("/f", produce(0)).join())
          .isEqualTo(new AppendVerdict.Duplicate(0, 1, false));
      assertThat(bodies(second.service, "/f")).containsExactly("p0");
    }
  }

  /**
   * An entry write says up to which seq it covers the stamps in the log. A trim written while a
   * plain append is still in flight must not claim that append's seq: if the append is then lost in
   * a crash, the next stamped batch lands at that very seq, and a load that believed it covered
   * would skip its stamp (and take its retry for a new append).
   */
  @Test
  void anEntryNeverClaimsSeqsThatAreNotDurable() throws Exception {
    AtomicReference<HeldAppends> engine = new AtomicReference<>();
    NodeFixture first = heldNode(dir, engine);
    first.service.create("/t", CreateRequest.of("text/plain")).join();
    first.service.append("/t", AppendRequest.of(List.of(NewRecord.of("a".getBytes(UTF_8))))).join();
    engine.get().hold();
    first.service.append("/t", AppendRequest.of(List.of(NewRecord.of("lost".getBytes(UTF_8)))));
    first.service.trim("/t", 1);
    // Nothing to wait for when the entry write waits for the append, as it must: for a window (the
    // test's input) in which a write that did not wait would land, the stored entry must never
    // claim the held seq 1. The restarts below check what such an entry would break.
    await("the stored entry not claiming the seq still in flight")
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(5))
        .until(() -> stored(first, "/t").stampedThrough() <= 1);
    first.abandon();

    AtomicReference<EntryFault> fault = new AtomicReference<>();
    NodeFixture second = node(dir, 2, fault);
    fault.get().set(EntryFault.Mode.HOLD);
    second.service.append("/t", produce(0));
    awaitTail(second.service, "/t", 2);
    second.abandon();

    try (NodeFixture third = node(dir, 3, new AtomicReference<>())) {
      assertThat(third.service.append("/t", produce(0)).join())
          .isInstanceOf(AppendVerdict.Duplicate.class);
      assertThat(bodies(third.service, "/t")).containsExactly("a", "p0");
    }
  }

  /** Plain appends write no entry, but every 4096 records one moves the replay point up. */
  @Test
  void plainAppendsBoundWhatALoadReplays() throws Exception {
    try (NodeFixture node = node(dir, 1, new AtomicReference<>())) {
      node.service.create("/plain", CreateRequest.of("text/plain")).join();
      List<NewRecord> hundred = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        hundred.add(NewRecord.of(("r" + i).getBytes(UTF_8)));
      }
      for (int i = 0; i < 42; i++) {
        node.service.append("/plain", AppendRequest.of(hundred)).join();
      }
      Callable<Long> stampedThrough = () -> stored(node, "/plain").stampedThrough();
      await("an entry moving the replay point past 4096")
          .atMost(Duration.ofSeconds(30))
          .until(stampedThrough, through -> through >= 4096);
      assertThat(stampedThrough.call()).isBetween(4096L, 4200L);
    }
  }

  /**
   * Crashes at random points of a pipelined producer (before, during and after durability, with
   * some entry writes through): after the restart the producer retries every unanswered seq in
   * order; each is a duplicate exactly when its record survived, and the stream ends up with every
   * seq once, in order.
   */
  @Test
  void retriesAfterCrashesAtRandomPointsWriteEverySeqExactlyOnce() throws Exception {
    long seed = Long.getLong("picomq.seed", new Random().nextLong());
    Random random = new Random(seed);
    for (int round = 0; round < 4; round++) {
      Path roundDir = dir.resolve("round" + round);
      AtomicReference<EntryFault> fault = new AtomicReference<>();
      NodeFixture first = node(roundDir, 1, fault);
      first.service.create("/r", CreateRequest.of("text/plain")).join();
      fault.get().holdAfter(random.nextInt(6));
      int total = 8;
      List<CompletableFuture<AppendVerdict>> sent = new ArrayList<>();
      for (int seq = 0; seq < total; seq++) {
        sent.add(first.service.append("/r", produce(seq)));
      }
      // The input, not a wait for an effect: how far the appends get before the crash.
      Thread.sleep(random.nextInt(40));
      List<Boolean> acknowledged = new ArrayList<>();
      for (CompletableFuture<AppendVerdict> answer : sent) {
        acknowledged.add(
            answer.isDone() && !answer.isCompletedExceptionally()
                ? answer.join() instanceof AppendVerdict.Accepted
                : false);
      }
      first.abandon();

      try (NodeFixture second = node(roundDir, 2, new AtomicReference<>())) {
        List<String> survived = bodies(second.service, "/r");
        for (int seq = 0; seq < survived.size(); seq++) {
          assertThat(survived.get(seq)).as("seed %d round %d", seed, round).isEqualTo("p" + seq);
        }
        for (int seq = 0; seq < total; seq++) {
          if (acknowledged.get(seq)) {
            assertThat(survived).as("seed %d round %d", seed, round).contains("p" + seq);
            continue;
          }
          AppendVerdict retry = second.service.append("/r", produce(seq)).join();
          if (survived.contains("p" + seq)) {
            assertThat(retry)
                .as("seed %d round %d seq %d", seed, round, seq)
                .isInstanceOf(AppendVerdict.Duplicate.class);
          } else {
            assertThat(retry)
                .as("seed %d round %d seq %d", seed, round, seq)
                .isInstanceOf(AppendVerdict.Accepted.class);
          }
        }
        List<String> expected = new ArrayList<>();
        for (int seq = 0; seq < total; seq++) {
          expected.add("p" + seq);
        }
        assertThat(bodies(second.service, "/r"))
            .as("seed %d round %d", seed, round)
            .containsExactlyElementsOf(expected);
      }
    }
  }

  private static NodeFixture node(Path dir, long epoch, AtomicReference<EntryFault> fault)
      throws Exception {
    return new NodeFixture(
        "sqlite:" + dir.resolve("meta.db"),
        BackendOptions.defaults(),
        dir,
        epoch,
        Clock.systemUTC(),
        real -> {
          EntryFault wrapped = new EntryFault(real);
          fault.set(wrapped);
          return wrapped;
        });
  }

  /** Node 1 on the real engine, wrapped so that its appends can be held ({@link HeldAppends}). */
  private static NodeFixture heldNode(Path dir, AtomicReference<HeldAppends> engine)
      throws Exception {
    return heldNode(dir, 1, engine);
  }

  /** The same, at node epoch {@code epoch}. */
  private static NodeFixture heldNode(Path dir, long epoch, AtomicReference<HeldAppends> engine)
      throws Exception {
    return new NodeFixture(
        "sqlite:" + dir.resolve("meta.db"),
        BackendOptions.defaults(),
        dir,
        epoch,
        Clock.systemUTC(),
        entries -> entries,
        real -> {
          HeldAppends held = new HeldAppends(real);
          engine.set(held);
          return held;
        });
  }

  /** Waits (not a speed assertion) until the records below {@code tail} are durable. */
  private static void awaitTail(StreamService service, String name, long tail) {
    await(name + " reaching " + tail)
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                service.read(name, new ReadWindow(0, 1, 1)).join()
                        instanceof ReadOutcome.Batch batch
                    && batch.stream().nextSeq() >= tail);
  }

  /** The registry entry of {@code name} as the metadata log holds it now. */
  private static Registration stored(NodeFixture node, String name) {
    return Registration.decode(
        node.plane.state().kvValue(Registry.key(name)).orElseThrow().toByteArray());
  }

  private static List<String> bodies(StreamService service, String name) {
    ReadOutcome.Batch batch =
        (ReadOutcome.Batch)
            service.read(name, new ReadWindow(0, Integer.MAX_VALUE, Long.MAX_VALUE)).join();
    return batch.records().stream().map(record -> new String(record.body(), UTF_8)).toList();
  }

  private static AppendRequest produce(long seq) {
    return new AppendRequest(
        List.of(NewRecord.of(("p" + seq).getBytes(UTF_8))),
        Optional.empty(),
        Optional.of(new ProducerTag("producer", 0, seq)),
        Optional.empty(),
        OptionalLong.empty(),
        false);
  }

  private static AppendRequest writer(String writerSeq) {
    return new AppendRequest(
        List.of(NewRecord.of(writerSeq.getBytes(UTF_8))),
        Optional.empty(),
        Optional.empty(),
        Optional.of(writerSeq),
        OptionalLong.empty(),
        false);
  }

  private static AppendRequest sealing(String body) {
    return new AppendRequest(
        List.of(NewRecord.of(body.getBytes(UTF_8))),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        OptionalLong.empty(),
        true);
  }
}
