package io.picomq.s3stream.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.core.testing.StreamReads.ReadBatch;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Crash safety, shown by force: concurrent appenders write to an engine on real storage; the engine
 * "crashes" at an injected point (a {@link CrashSwitch} shared by decorators around its stores and
 * metadata managers: every later operation is refused, answers in flight are lost, the instance is
 * abandoned without shutdown); optionally the next instance crashes too, during its own recovery; a
 * last instance recovers, and every acknowledged record must be readable exactly once, at the
 * offsets it was acknowledged with, with no gap.
 *
 * <p>Each run is a {@link Scenario} drawn from a seed: streams, appenders, in-flight window, record
 * sizes, upload threshold and split size, and where the crash happens (before or after the n-th WAL
 * PUT, data object PUT, id preparation or commit, or at a random time). Runs of one suite use
 * consecutive seeds from {@code -Dpicomq.seed} (drawn at random if absent, and printed); {@code
 * -Dpicomq.crash.runs} sets how many. To replay a failed run, pass its seed with {@code
 * -Dpicomq.crash.runs=1}: the scenario is the same, thread timing is not.
 */
public final class CrashHarness {

  /** Storage nodes crash on: node 1 of the run's cluster. */
  public static final int NODE = 1;

  /** How long a run writes when its planned crash point is never reached. */
  private static final long CRASH_WAIT_MILLIS = 800;

  /** How long appenders wait, after the crash, for answers still on their way. */
  private static final long ANSWER_WAIT_MILLIS = 2_000;

  private CrashHarness() {}

  /** The seed of run 0: {@code -Dpicomq.seed}, else random. */
  public static long baseSeed() {
    String given = System.getProperty("picomq.seed");
    return given != null && !given.isBlank()
        ? Long.parseLong(given.trim())
        : new SecureRandom().nextLong() & Long.MAX_VALUE;
  }

  /** How many runs: {@code -Dpicomq.crash.runs}, else {@code defaultRuns}. */
  public static int runs(int defaultRuns) {
    return Integer.getInteger("picomq.crash.runs", defaultRuns);
  }

  /**
   * One run's choices.
   *
   * @param crash where the first instance crashes, empty for a crash at {@code crashAfterMillis}
   * @param recoveryCrash where the second instance crashes during recovery, if it does
   */
  public record Scenario(
      long seed,
      int streams,
      int appenders,
      int window,
      int maxRecordBytes,
      long uploadThresholdBytes,
      long splitSizeBytes,
      Optional<CrashSwitch.Point> crash,
      long crashAfterMillis,
      Optional<CrashSwitch.Point> recoveryCrash) {

    public static Scenario draw(long seed) {
      Random r = new Random(seed);
      int streams = 1 + r.nextInt(4);
      int appenders = 1 + r.nextInt(6);
      int window = 1 + r.nextInt(16);
      int maxRecordBytes = new int[] {200, 2_000, 8_000}[r.nextInt(3)];
      long threshold = (16 << 10) + r.nextInt(384 << 10);
      long split = (8 << 10) + r.nextInt(504 << 10);
      CrashSwitch.Point crash =
          switch (r.nextInt(8)) {
            case 0 -> new CrashSwitch.Point(CrashSwitch.Site.WAL_PUT, 1 + r.nextInt(40), false);
            case 1 -> new CrashSwitch.Point(CrashSwitch.Site.WAL_PUT, 1 + r.nextInt(40), true);
            case 2 -> new CrashSwitch.Point(CrashSwitch.Site.DATA_PUT, 1 + r.nextInt(6), false);
            case 3 -> new CrashSwitch.Point(CrashSwitch.Site.DATA_PUT, 1 + r.nextInt(6), true);
            case 4 -> new CrashSwitch.Point(CrashSwitch.Site.COMMIT, 1 + r.nextInt(4), false);
            case 5 -> new CrashSwitch.Point(CrashSwitch.Site.COMMIT, 1 + r.nextInt(4), true);
            case 6 -> new CrashSwitch.Point(CrashSwitch.Site.PREPARE, 1 + r.nextInt(4), false);
            default -> null;
          };
      long crashAfter = 20 + r.nextInt(400);
      CrashSwitch.Point recoveryCrash =
          r.nextInt(10) < 4
              ? new CrashSwitch.Point(null, 1 + r.nextInt(25), r.nextBoolean())
              : null;
      return new Scenario(
          seed,
          streams,
          appenders,
          window,
          maxRecordBytes,
          threshold,
          split,
          Optional.ofNullable(crash),
          crashAfter,
          Optional.ofNullable(recoveryCrash));
    }

    @Override
    public String toString() {
      return "seed="
          + seed
          + " crash="
          + crash.map(Object::toString).orElse("at " + crashAfterMillis + " ms")
          + recoveryCrash.map(p -> ", in recovery " + p).orElse("")
          + " (streams="
          + streams
          + ", appenders="
          + appenders
          + ", window="
          + window
          + ", records<="
          + maxRecordBytes
          + "B, upload="
          + (uploadThresholdBytes >> 10)
          + "KiB, split="
          + (splitSizeBytes >> 10)
          + "KiB)";
    }
  }

  /** What a run saw, for the suite's summary. */
  public record Outcome(int acknowledged, int readBack, double recoveredRecords) {}

  /** An acknowledged append. */
  private record Ack(long streamId, String id, long baseOffset, int count) {}

  /**
   * Runs {@code scenario} on {@code storage} (fresh, owned by the caller) and checks the result.
   */
  public static Outcome run(Scenario scenario, EngineStorage storage) throws Exception {
    Random random = new Random(scenario.seed() ^ 0x5DEECE66DL);
    InMemoryMetadata metadata = new InMemoryMetadata();
    List<Long> streamIds = new ArrayList<>();
    for (int i = 0; i < scenario.streams(); i++) {
      streamIds.add(metadata.createStream());
    }
    long epoch = 1;

    // The first process: appenders until it crashes.
    CrashSwitch first = new CrashSwitch(scenario.crash().orElse(null));
    TestEngine writer = crashable(storage, metadata, epoch++, first, scenario);
    Queue acks = new Queue();
    try {
      writer.engine.start().get(30, TimeUnit.SECONDS);
      List<Stream> streams = new ArrayList<>();
      for (long id : streamIds) {
        streams.add(writer.engine.openStream(id).get(30, TimeUnit.SECONDS));
      }
      List<Thread> threads = new ArrayList<>();
      for (int a = 0; a < scenario.appenders(); a++) {
        Stream stream = streams.get(a % streams.size());
        long seed = random.nextLong();
        String name = "a" + a;
        threads.add(
            Thread.ofPlatform()
                .name("crash-appender-" + name)
                .start(() -> appendUntilCrash(stream, name, scenario, seed, first, acks)));
      }
      try {
        first
            .tripped()
            .get(
                scenario.crash().isPresent() ? CRASH_WAIT_MILLIS : scenario.crashAfterMillis(),
                TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        first.trip();
      }
      for (Thread t : threads) {
        t.join();
      }
    } catch (Exception e) {
      // The crash hit start or open: nothing was acknowledged through this instance.
      first.trip();
    } finally {
      first.trip();
      writer.abandon();
    }

    // Maybe a second process crashes during its own recovery.
    if (scenario.recoveryCrash().isPresent()) {
      CrashSwitch second = new CrashSwitch(scenario.recoveryCrash().get());
      TestEngine recovering = crashable(storage, metadata, epoch++, second, scenario);
      try {
        // A crashed process may keep retrying a commit that can no longer answer: stop waiting.
        CompletableFuture.anyOf(recovering.engine.start(), second.tripped())
            .get(30, TimeUnit.SECONDS);
      } catch (Exception expected) {
        // It crashed, as planned.
      } finally {
        second.trip();
        recovering.abandon();
      }
    }

    // The last process recovers; everything acknowledged must be there, once, in order.
    TestEngine last = crashable(storage, metadata, epoch, CrashSwitch.manual(), scenario);
    try {
      last.engine.start().get(60, TimeUnit.SECONDS);
      int readBack = 0;
      for (long id : streamIds) {
        readBack += verify(scenario, last, metadata, id, acks.of(id));
      }
      double recovered = last.registry.get("s3stream.recovery.records").counter().count();
      return new Outcome(acks.size(), readBack, recovered);
    } finally {
      last.shutdown();
    }
  }

  private static int verify(
      Scenario scenario,
      TestEngine engine,
      InMemoryMetadata metadata,
      long streamId,
      List<Ack> acks)
      throws Exception {
    Stream stream = engine.engine.openStream(streamId).get(30, TimeUnit.SECONDS);
    long end = stream.confirmOffset();
    assertThat(metadata.stream(streamId).endOffset())
        .as("%s: stream %d's committed end after recovery", scenario, streamId)
        .isEqualTo(end);
    List<ReadBatch> read = StreamReads.readAll(stream, 0, end, 1 << 20);
    Map<String, ReadBatch> byId = new HashMap<>();
    long expected = 0;
    for (ReadBatch b : read) {
      assertThat(b.baseOffset())
          .as("%s: stream %d is contiguous", scenario, streamId)
          .isEqualTo(expected);
      expected = b.nextOffset();
      String id = StreamReads.readBatchId(b);
      assertThat(byId.put(id, b))
          .as("%s: record %s appears twice in stream %d", scenario, id, streamId)
          .isNull();
    }
    for (Ack ack : acks) {
      ReadBatch found = byId.get(ack.id());
      assertThat(found)
          .as(
              "%s: acknowledged record %s at %d of stream %d is lost",
              scenario, ack.id(), ack.baseOffset(), streamId)
          .isNotNull();
      assertThat(found.baseOffset())
          .as("%s: record %s moved", scenario, ack.id())
          .isEqualTo(ack.baseOffset());
      assertThat(found.count()).isEqualTo(ack.count());
    }
    return read.size();
  }

  private static void appendUntilCrash(
      Stream stream, String name, Scenario scenario, long seed, CrashSwitch crash, Queue acks) {
    Random random = new Random(seed);
    Deque<CompletableFuture<AppendOutcome>> inFlight = new ArrayDeque<>();
    int seq = 0;
    while (!crash.isCrashed()) {
      int count = 1 + random.nextInt(3);
      String id = name + "-" + seq++;
      ByteBuf payload = payload(id, 20 + random.nextInt(scenario.maxRecordBytes()));
      CompletableFuture<AppendOutcome> appended = stream.append(count, payload);
      appended.whenComplete(
          (outcome, error) -> {
            payload.release();
            if (outcome instanceof AppendOutcome.Appended a) {
              acks.add(new Ack(stream.streamId(), id, a.baseOffset(), count));
            }
          });
      inFlight.add(appended);
      while (inFlight.size() >= scenario.window()
          || (!inFlight.isEmpty() && inFlight.peek().isDone())) {
        CompletableFuture<AppendOutcome> oldest = inFlight.peek();
        try {
          CompletableFuture.anyOf(oldest, crash.tripped()).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
          // Inspected below.
        }
        if (!oldest.isDone() || !(oldest.getNow(null) instanceof AppendOutcome.Appended)) {
          awaitAnswers(inFlight);
          return;
        }
        inFlight.poll();
      }
    }
    awaitAnswers(inFlight);
  }

  /**
   * Gives answers still on their way a moment to arrive (acknowledgements are recorded as they
   * come); those that never do were not acknowledged.
   */
  private static void awaitAnswers(Deque<CompletableFuture<AppendOutcome>> inFlight) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_WAIT_MILLIS);
    for (CompletableFuture<AppendOutcome> f : inFlight) {
      try {
        f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (Exception e) {
        // Not acknowledged (yet).
      }
    }
  }

  private static TestEngine crashable(
      EngineStorage storage, InMemoryMetadata metadata, long epoch, CrashSwitch crash, Scenario s) {
    CrashingMetadata managers = new CrashingMetadata(metadata.register(NODE, epoch), crash);
    return storage.engine(
        NODE,
        epoch,
        managers,
        managers,
        new CrashingObjectStore(
            storage.dataStore, crash, CrashSwitch.Site.DATA_PUT, CrashSwitch.Site.DATA_OTHER),
        new CrashingObjectStore(
            storage.dataStore, crash, CrashSwitch.Site.WAL_PUT, CrashSwitch.Site.WAL_OTHER),
        c ->
            c.walCacheSizeBytes(1 << 20)
                .walUploadThresholdBytes(s.uploadThresholdBytes())
                .streamSplitSizeBytes(s.splitSizeBytes())
                .objectBlockSizeBytes(64 << 10)
                .appendWaitMillis(2_000));
  }

  private static ByteBuf payload(String id, int sizeBytes) {
    byte[] name = (id + "|").getBytes(StandardCharsets.ISO_8859_1);
    byte[] bytes = new byte[Math.max(sizeBytes, name.length)];
    System.arraycopy(name, 0, bytes, 0, name.length);
    for (int i = name.length; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 31);
    }
    return Unpooled.wrappedBuffer(bytes);
  }

  /** Acknowledgements from every appender. */
  private static final class Queue {
    private final ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();

    void add(Ack ack) {
      acks.add(ack);
    }

    int size() {
      return acks.size();
    }

    List<Ack> of(long streamId) {
      List<Ack> mine = new ArrayList<>();
      for (Ack a : acks) {
        if (a.streamId() == streamId) {
          mine.add(a);
        }
      }
      return Collections.unmodifiableList(mine);
    }
  }
}
