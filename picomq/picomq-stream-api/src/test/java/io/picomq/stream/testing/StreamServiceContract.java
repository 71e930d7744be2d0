package io.picomq.stream.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.CreateOutcome;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.DeleteOutcome;
import io.picomq.stream.Expiry;
import io.picomq.stream.ForkPoint;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.ListQuery;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ProducerTag;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamRecord;
import io.picomq.stream.StreamService;
import io.picomq.stream.TrimOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link StreamService} owes its frontends. A backend's test extends this class
 * and supplies a fresh service driven by the given clock.
 */
public abstract class StreamServiceContract {

  protected static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  protected MutableClock clock;
  protected StreamService service;

  /** A fresh, empty service whose notion of time is {@code clock}. */
  protected abstract StreamService newService(MutableClock clock);

  @BeforeEach
  void startService() {
    clock = new MutableClock(START);
    service = newService(clock);
  }

  // ---- create -------------------------------------------------------------------------------

  @Test
  void createIsIdempotentForTheSameConfiguration() {
    assertThat(create("/a", CreateRequest.of("text/plain")))
        .isInstanceOf(CreateOutcome.Created.class);
    assertThat(create("/a", CreateRequest.of("TEXT/plain; charset=utf-8")))
        .isInstanceOf(CreateOutcome.Exists.class);
    assertThat(create("/a", CreateRequest.of("application/json")))
        .isInstanceOf(CreateOutcome.Conflict.class);
    assertThat(create("/a", withExpiry("text/plain", new Expiry.Ttl(60))))
        .isInstanceOf(CreateOutcome.Conflict.class);
  }

  @Test
  void aRepeatedCreateWritesNothing() {
    create("/a", createWith("text/plain", false, "one"));
    assertThat(create("/a", createWith("text/plain", false, "two")))
        .isInstanceOf(CreateOutcome.Exists.class);
    assertThat(bodies(readAll("/a"))).containsExactly("one");
  }

  @Test
  void defaultsAreOctetStreamAndNoExpiry() {
    CreateOutcome.Created created =
        (CreateOutcome.Created)
            create(
                "/a",
                new CreateRequest(
                    Optional.empty(), Optional.empty(), false, List.of(), Optional.empty()));
    assertThat(created.stream().contentType()).isEqualTo("application/octet-stream");
    assertThat(created.stream().expiry()).isEqualTo(Expiry.NEVER);
    assertThat(created.stream().expiresAt()).isEmpty();
    assertThat(created.stream().nextSeq()).isZero();
  }

  @Test
  void initialRecordsAndClosedAtCreation() {
    CreateOutcome.Created created =
        (CreateOutcome.Created) create("/a", createWith("text/plain", true, "x", "y"));
    assertThat(created.stream().nextSeq()).isEqualTo(2);
    assertThat(created.stream().closed()).isTrue();
    ReadOutcome.Batch batch = readAll("/a");
    assertThat(bodies(batch)).containsExactly("x", "y");
    assertThat(batch.endOfStream()).isTrue();
  }

  @Test
  void aRecreatedNameIsANewIncarnation() {
    long first =
        ((CreateOutcome.Created) create("/a", CreateRequest.of("text/plain"))).stream().streamId();
    append("/a", "old");
    assertThat(join(service.delete("/a"))).isEqualTo(new DeleteOutcome.Deleted(false));
    assertThat(join(service.head("/a"))).isInstanceOf(HeadOutcome.NotFound.class);
    CreateOutcome.Created again =
        (CreateOutcome.Created) create("/a", CreateRequest.of("text/plain"));
    assertThat(again.stream().streamId()).isNotEqualTo(first);
    assertThat(readAll("/a").records()).isEmpty();
    assertThat(join(service.delete("/missing"))).isInstanceOf(DeleteOutcome.NotFound.class);
  }

  // ---- append -------------------------------------------------------------------------------

  @Test
  void appendsTakeConsecutiveSeqsAndOneTimestampPerCall() {
    create("/a", CreateRequest.of("text/plain"));
    AppendVerdict.Accepted first = (AppendVerdict.Accepted) append("/a", "a", "b");
    assertThat(first.startSeq()).isZero();
    assertThat(first.nextSeq()).isEqualTo(2);
    assertThat(first.timestampMillis()).isEqualTo(START.toEpochMilli());
    clock.advance(Duration.ofSeconds(1));
    AppendVerdict.Accepted second = (AppendVerdict.Accepted) append("/a", "c");
    assertThat(second.startSeq()).isEqualTo(2);
    assertThat(second.timestampMillis()).isEqualTo(START.toEpochMilli() + 1000);
    List<StreamRecord> records = readAll("/a").records();
    assertThat(records).extracting(StreamRecord::seq).containsExactly(0L, 1L, 2L);
    assertThat(records)
        .extracting(StreamRecord::timestampMillis)
        .containsExactly(
            first.timestampMillis(), first.timestampMillis(), second.timestampMillis());
  }

  @Test
  void timestampsNeverGoBackwardsWhenTheClockDoes() {
    create("/a", CreateRequest.of("text/plain"));
    AppendVerdict.Accepted first = (AppendVerdict.Accepted) append("/a", "a");
    clock.set(START.minusSeconds(30));
    AppendVerdict.Accepted second = (AppendVerdict.Accepted) append("/a", "b");
    assertThat(second.timestampMillis()).isGreaterThanOrEqualTo(first.timestampMillis());
  }

  @Test
  void headersTravelWithTheRecord() {
    create("/a", CreateRequest.of("text/plain"));
    join(
        service.append(
            "/a",
            AppendRequest.of(List.of(new NewRecord(Map.of("k", "v"), "body".getBytes(UTF_8))))));
    assertThat(readAll("/a").records().getFirst().headers()).containsExactly(Map.entry("k", "v"));
  }

  @Test
  void appendToAMissingStream() {
    assertThat(append("/missing", "x")).isInstanceOf(AppendVerdict.NotFound.class);
  }

  @Test
  void contentTypeIsCheckedByMediaType() {
    create("/a", CreateRequest.of("application/json"));
    assertThat(appendTyped("/a", "text/plain"))
        .isEqualTo(new AppendVerdict.ContentTypeMismatch("application/json"));
    assertThat(appendTyped("/a", "Application/JSON; charset=utf-8"))
        .isInstanceOf(AppendVerdict.Accepted.class);
  }

  @Test
  void closeSealsTheStreamAndClosingAgainSucceeds() {
    create("/a", CreateRequest.of("text/plain"));
    append("/a", "x");
    AppendRequest closeWithRecord =
        new AppendRequest(
            records("last"),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            OptionalLong.empty(),
            true);
    assertThat(join(service.append("/a", closeWithRecord)))
        .isEqualTo(new AppendVerdict.Accepted(1, 2, START.toEpochMilli(), true));
    assertThat(join(service.append("/a", AppendRequest.closeOnly())))
        .isInstanceOfSatisfying(
            AppendVerdict.Accepted.class, accepted -> assertThat(accepted.nextSeq()).isEqualTo(2));
    assertThat(append("/a", "late")).isEqualTo(new AppendVerdict.Closed(2));
    assertThat(join(service.append("/a", closeWithRecord))).isEqualTo(new AppendVerdict.Closed(2));
    assertThat(bodies(readAll("/a"))).containsExactly("x", "last");
  }

  @Test
  void conditionalAppendNeedsTheExpectedTail() {
    create("/a", CreateRequest.of("text/plain"));
    append("/a", "x");
    assertThat(join(service.append("/a", expecting(0))))
        .isEqualTo(new AppendVerdict.TailMismatch(0, 1));
    assertThat(join(service.append("/a", expecting(1)))).isInstanceOf(AppendVerdict.Accepted.class);
  }

  @Test
  void writerSeqsMustRiseByteWise() {
    create("/a", CreateRequest.of("text/plain"));
    assertThat(writerSeq("/a", "2")).isInstanceOf(AppendVerdict.Accepted.class);
    assertThat(writerSeq("/a", "10")).isEqualTo(new AppendVerdict.WriterSeqRegression("2", "10"));
    assertThat(writerSeq("/a", "2")).isInstanceOf(AppendVerdict.WriterSeqRegression.class);
    assertThat(writerSeq("/a", "20")).isInstanceOf(AppendVerdict.Accepted.class);
    assertThat(writerSeq("/a", "B")).isInstanceOf(AppendVerdict.Accepted.class);
    assertThat(writerSeq("/a", "a")).isInstanceOf(AppendVerdict.Accepted.class);
    // U+FFFD sorts after U+1F600 in UTF-16 but before it in UTF-8.
    assertThat(writerSeq("/a", "\uFFFD")).isInstanceOf(AppendVerdict.Accepted.class);
    assertThat(writerSeq("/a", "\uD83D\uDE00")).isInstanceOf(AppendVerdict.Accepted.class);
  }

  // ---- idempotent producers -----------------------------------------------------------------

  @Test
  void producerSeqsDeduplicateAndFence() {
    create("/a", CreateRequest.of("text/plain"));
    assertThat(produce("/a", "p", 0, 0)).isInstanceOf(AppendVerdict.Accepted.class);
    assertThat(produce("/a", "p", 0, 1)).isInstanceOf(AppendVerdict.Accepted.class);
    assertThat(produce("/a", "p", 0, 2)).isInstanceOf(AppendVerdict.Accepted.class);
    assertThat(produce("/a", "p", 0, 1)).isEqualTo(new AppendVerdict.Duplicate(2, 3, false));
    assertThat(produce("/a", "p", 0, 4)).isEqualTo(new AppendVerdict.SeqGap(3, 4));
    assertThat(produce("/a", "p", 1, 3)).isEqualTo(new AppendVerdict.EpochMustStartAtZero(1, 3));
    assertThat(produce("/a", "p", 1, 0)).isInstanceOf(AppendVerdict.Accepted.class);
    assertThat(produce("/a", "p", 0, 3)).isEqualTo(new AppendVerdict.StaleEpoch(1));
    assertThat(produce("/a", "q", 0, 5)).isEqualTo(new AppendVerdict.SeqGap(0, 5));
    assertThat(produce("/a", "q", 7, 0)).isInstanceOf(AppendVerdict.Accepted.class);
    assertThat(bodies(readAll("/a"))).containsExactly("p0.0", "p0.1", "p0.2", "p1.0", "q7.0");
  }

  @Test
  void aRefusedAppendDoesNotAdvanceTheProducer() {
    create("/a", CreateRequest.of("text/plain"));
    AppendRequest conditional =
        new AppendRequest(
            records("x"),
            Optional.empty(),
            Optional.of(new ProducerTag("p", 0, 0)),
            Optional.empty(),
            OptionalLong.of(9),
            false);
    assertThat(join(service.append("/a", conditional)))
        .isInstanceOf(AppendVerdict.TailMismatch.class);
    assertThat(produce("/a", "p", 0, 0)).isInstanceOf(AppendVerdict.Accepted.class);
  }

  @Test
  void aDuplicateIsAnsweredEvenAfterTheStreamClosed() {
    create("/a", CreateRequest.of("text/plain"));
    AppendRequest closing =
        new AppendRequest(
            records("final"),
            Optional.empty(),
            Optional.of(new ProducerTag("p", 0, 0)),
            Optional.empty(),
            OptionalLong.empty(),
            true);
    assertThat(join(service.append("/a", closing))).isInstanceOf(AppendVerdict.Accepted.class);
    assertThat(join(service.append("/a", closing)))
        .isEqualTo(new AppendVerdict.Duplicate(0, 1, true));
    assertThat(produce("/a", "p", 0, 1)).isEqualTo(new AppendVerdict.Closed(1));
    assertThat(produce("/a", "other", 0, 0)).isEqualTo(new AppendVerdict.Closed(1));
  }

  // ---- read ---------------------------------------------------------------------------------

  @Test
  void readCapsAlwaysLetOneRecordThrough() {
    create("/a", CreateRequest.of("text/plain"));
    append("/a", "aaaa", "bb", "c");
    ReadOutcome.Batch big = read("/a", 0, 10, 1);
    assertThat(bodies(big)).containsExactly("aaaa");
    assertThat(big.nextSeq()).isEqualTo(1);
    assertThat(big.upToDate()).isFalse();
    assertThat(bodies(read("/a", 1, 10, 3))).containsExactly("bb", "c");
    assertThat(bodies(read("/a", 0, 2, 100))).containsExactly("aaaa", "bb");
    ReadOutcome.Batch atTail = read("/a", 3, 10, 100);
    assertThat(atTail.records()).isEmpty();
    assertThat(atTail.upToDate()).isTrue();
    assertThat(atTail.endOfStream()).isFalse();
    assertThat(join(service.read("/a", new ReadWindow(4, 1, 1))))
        .isEqualTo(new ReadOutcome.BeyondTail(3));
    assertThat(join(service.read("/missing", new ReadWindow(0, 1, 1))))
        .isInstanceOf(ReadOutcome.NotFound.class);
  }

  @Test
  void trimMovesTheStart() {
    create("/a", CreateRequest.of("text/plain"));
    append("/a", "a", "b", "c");
    assertThat(join(service.trim("/a", 2))).isEqualTo(new TrimOutcome.Trimmed(2));
    assertThat(join(service.trim("/a", 1))).isEqualTo(new TrimOutcome.Trimmed(2));
    assertThat(join(service.trim("/a", 4))).isEqualTo(new TrimOutcome.BeyondTail(3));
    assertThat(join(service.read("/a", new ReadWindow(1, 10, 100))))
        .isEqualTo(new ReadOutcome.Trimmed(2));
    assertThat(bodies(read("/a", 2, 10, 100))).containsExactly("c");
    assertThat(head("/a").startSeq()).isEqualTo(2);
  }

  /** Seeded random appends and reads against a list model; the seed is printed on failure. */
  @Test
  void randomAppendsAndReadsMatchAModel() {
    long seed = Long.getLong("picomq.seed", new Random().nextLong());
    Random random = new Random(seed);
    create("/m", CreateRequest.of("application/octet-stream"));
    List<String> model = new ArrayList<>();
    for (int step = 0; step < 300; step++) {
      if (random.nextBoolean()) {
        int count = 1 + random.nextInt(4);
        String[] bodies = new String[count];
        for (int i = 0; i < count; i++) {
          bodies[i] = "r" + model.size() + "-" + "x".repeat(random.nextInt(20));
          model.add(bodies[i]);
        }
        assertThat(append("/m", bodies))
            .as("seed %d step %d", seed, step)
            .isInstanceOf(AppendVerdict.Accepted.class);
      } else {
        int from = random.nextInt(model.size() + 1);
        int maxRecords = 1 + random.nextInt(5);
        int maxBytes = 1 + random.nextInt(60);
        ReadOutcome.Batch batch = read("/m", from, maxRecords, maxBytes);
        List<String> got = bodies(batch);
        assertThat(got)
            .as("seed %d step %d", seed, step)
            .isEqualTo(model.subList(from, from + got.size()));
        assertThat(got.size())
            .as("seed %d step %d", seed, step)
            .isEqualTo(expectedCount(model, from, maxRecords, maxBytes));
      }
    }
  }

  private static int expectedCount(List<String> model, int from, int maxRecords, int maxBytes) {
    int count = 0;
    long bytes = 0;
    for (int i = from; i < model.size() && count < maxRecords; i++) {
      int size = model.get(i).length();
      if (count > 0 && bytes + size > maxBytes) {
        break;
      }
      bytes += size;
      count++;
    }
    return count;
  }

  // ---- waiting ------------------------------------------------------------------------------

  @Test
  void awaitBeyondWakesOnAppendCloseAndDelete() {
    create("/a", CreateRequest.of("text/plain"));
    append("/a", "x");
    assertThat(service.awaitBeyond("/a", 0)).isDone();
    assertThat(service.awaitBeyond("/missing", 0)).isDone();

    CompletableFuture<Void> onAppend = service.awaitBeyond("/a", 1);
    CompletableFuture<Void> further = service.awaitBeyond("/a", 2);
    assertThat(onAppend).isNotDone();
    append("/a", "y");
    assertThat(onAppend).isDone();
    assertThat(further).isNotDone();

    join(service.append("/a", AppendRequest.closeOnly()));
    assertThat(further).isDone();
    assertThat(service.awaitBeyond("/a", 5)).isDone();

    create("/b", CreateRequest.of("text/plain"));
    CompletableFuture<Void> onDelete = service.awaitBeyond("/b", 0);
    join(service.delete("/b"));
    assertThat(onDelete).isDone();
  }

  @Test
  void aCancelledWaitStaysCancelledAndOthersStillWake() {
    create("/a", CreateRequest.of("text/plain"));
    CompletableFuture<Void> abandoned = service.awaitBeyond("/a", 0);
    CompletableFuture<Void> kept = service.awaitBeyond("/a", 0);
    assertThat(abandoned.cancel(false)).isTrue();
    append("/a", "x");
    assertThat(abandoned).isCancelled();
    assertThat(kept).isCompletedWithValue(null);
  }

  // ---- expiry -------------------------------------------------------------------------------

  @Test
  void aTtlSlidesWithReadsAndAppendsButNotHeads() {
    create("/a", withExpiry("text/plain", new Expiry.Ttl(10)));
    assertThat(head("/a").expiresAt()).contains(START.plusSeconds(10));
    clock.advance(Duration.ofSeconds(8));
    head("/a");
    read("/a", 0, 1, 1);
    assertThat(head("/a").expiresAt()).contains(START.plusSeconds(18));
    clock.advance(Duration.ofSeconds(8));
    append("/a", "x");
    clock.advance(Duration.ofSeconds(8));
    join(service.append("/a", AppendRequest.closeOnly()));
    clock.advance(Duration.ofSeconds(9));
    assertThat(join(service.head("/a"))).isInstanceOf(HeadOutcome.Found.class);
    clock.advance(Duration.ofSeconds(1));
    assertThat(join(service.head("/a"))).isInstanceOf(HeadOutcome.NotFound.class);
    assertThat(create("/a", CreateRequest.of("application/json")))
        .isInstanceOf(CreateOutcome.Created.class);
  }

  @Test
  void anExpiryInstantDoesNotMove() {
    create("/a", withExpiry("text/plain", new Expiry.At(START.plusSeconds(5))));
    clock.advance(Duration.ofSeconds(4));
    read("/a", 0, 1, 1);
    append("/a", "x");
    clock.advance(Duration.ofSeconds(1));
    assertThat(join(service.read("/a", new ReadWindow(0, 1, 1))))
        .isInstanceOf(ReadOutcome.NotFound.class);
    assertThat(append("/a", "y")).isInstanceOf(AppendVerdict.NotFound.class);
  }

  // ---- forks --------------------------------------------------------------------------------

  @Test
  void aForkInheritsAPrefixAndThenGoesItsOwnWay() {
    create("/src", createWith("text/plain", false, "A", "B", "C"));
    assertThat(fork("/f", ForkPoint.at("/src", 2))).isInstanceOf(CreateOutcome.Created.class);
    append("/f", "f");
    append("/src", "s");
    assertThat(bodies(readAll("/f"))).containsExactly("A", "B", "f");
    assertThat(bodies(readAll("/src"))).containsExactly("A", "B", "C", "s");
    assertThat(readAll("/f").records()).extracting(StreamRecord::seq).containsExactly(0L, 1L, 2L);
    assertThat(head("/f").contentType()).isEqualTo("text/plain");
  }

  @Test
  void aForkAtTheTailTakesEverythingAndForksChain() {
    create("/l0", createWith("text/plain", false, "X"));
    fork("/l1", ForkPoint.atTail("/l0"));
    append("/l1", "Y");
    fork("/l2", ForkPoint.atTail("/l1"));
    append("/l2", "Z");
    append("/l0", "0");
    append("/l1", "1");
    assertThat(bodies(readAll("/l0"))).containsExactly("X", "0");
    assertThat(bodies(readAll("/l1"))).containsExactly("X", "Y", "1");
    assertThat(bodies(readAll("/l2"))).containsExactly("X", "Y", "Z");
  }

  @Test
  void aForkCanSplitARecord() {
    create("/src", createWith("text/plain", false, "first", "hello"));
    fork("/f", new ForkPoint("/src", OptionalLong.of(1), 3));
    assertThat(bodies(readAll("/f"))).containsExactly("first", "hel");
    fork("/whole", new ForkPoint("/src", OptionalLong.of(1), 5));
    assertThat(bodies(readAll("/whole"))).containsExactly("first", "hello");
    fork("/g", new ForkPoint("/f", OptionalLong.of(1), 2));
    assertThat(bodies(readAll("/g"))).containsExactly("first", "he");
  }

  @Test
  void forkPointsOutsideTheSourceAreRefused() {
    create("/src", createWith("text/plain", false, "hi"));
    create("/empty", CreateRequest.of("text/plain"));
    assertThat(fork("/f1", ForkPoint.at("/src", 1))).isInstanceOf(CreateOutcome.Created.class);
    assertThat(fork("/f2", ForkPoint.at("/src", 2)))
        .isInstanceOf(CreateOutcome.InvalidForkPoint.class);
    assertThat(fork("/f3", new ForkPoint("/src", OptionalLong.of(0), 3)))
        .isInstanceOf(CreateOutcome.InvalidForkPoint.class);
    assertThat(fork("/f4", new ForkPoint("/src", OptionalLong.empty(), 1)))
        .isInstanceOf(CreateOutcome.InvalidForkPoint.class);
    assertThat(fork("/f5", new ForkPoint("/empty", OptionalLong.of(0), 1)))
        .isInstanceOf(CreateOutcome.InvalidForkPoint.class);
    assertThat(fork("/f6", ForkPoint.atTail("/nowhere")))
        .isInstanceOf(CreateOutcome.SourceNotFound.class);
    assertThat(join(service.head("/f2"))).isInstanceOf(HeadOutcome.NotFound.class);
  }

  @Test
  void aForkKeepsItsSourcesContentTypeAndExpiryUnlessTold() {
    create("/src", withExpiry("application/json", new Expiry.Ttl(3600)));
    assertThat(
            create(
                "/f",
                new CreateRequest(
                    Optional.of("text/plain"),
                    Optional.empty(),
                    false,
                    List.of(),
                    Optional.of(ForkPoint.atTail("/src")))))
        .isInstanceOf(CreateOutcome.Conflict.class);
    fork("/f", ForkPoint.atTail("/src"));
    assertThat(head("/f").contentType()).isEqualTo("application/json");
    assertThat(head("/f").expiry()).isEqualTo(new Expiry.Ttl(3600));
    create(
        "/g",
        new CreateRequest(
            Optional.empty(),
            Optional.of(new Expiry.Ttl(7200)),
            false,
            List.of(),
            Optional.of(ForkPoint.atTail("/src"))));
    assertThat(head("/g").expiry()).isEqualTo(new Expiry.Ttl(7200));
  }

  @Test
  void aRepeatedForkIsIdempotentOnlyAtTheSamePoint() {
    create("/src", createWith("text/plain", false, "hello"));
    assertThat(fork("/f", new ForkPoint("/src", OptionalLong.of(0), 2)))
        .isInstanceOf(CreateOutcome.Created.class);
    assertThat(fork("/f", new ForkPoint("/src", OptionalLong.of(0), 2)))
        .isInstanceOf(CreateOutcome.Exists.class);
    assertThat(fork("/f", new ForkPoint("/src", OptionalLong.of(0), 3)))
        .isInstanceOf(CreateOutcome.Conflict.class);
    fork("/g", ForkPoint.atTail("/src"));
    append("/src", "more");
    assertThat(fork("/g", ForkPoint.atTail("/src"))).isInstanceOf(CreateOutcome.Exists.class);
    assertThat(create("/g", CreateRequest.of("text/plain")))
        .isInstanceOf(CreateOutcome.Conflict.class);
  }

  @Test
  void aForkHasNoProducerStateOfItsOwnSource() {
    create("/src", CreateRequest.of("text/plain"));
    produce("/src", "p", 0, 0);
    fork("/f", ForkPoint.atTail("/src"));
    assertThat(produce("/f", "p", 0, 0)).isInstanceOf(AppendVerdict.Accepted.class);
  }

  @Test
  void deletingASourceWithForksSoftDeletesItUntilTheLastForkGoes() {
    create("/src", createWith("text/plain", false, "kept"));
    fork("/f", ForkPoint.atTail("/src"));
    assertThat(join(service.delete("/src"))).isEqualTo(new DeleteOutcome.Deleted(true));
    assertThat(join(service.head("/src"))).isInstanceOf(HeadOutcome.Gone.class);
    assertThat(join(service.read("/src", new ReadWindow(0, 1, 1))))
        .isInstanceOf(ReadOutcome.Gone.class);
    assertThat(append("/src", "x")).isInstanceOf(AppendVerdict.Gone.class);
    assertThat(join(service.delete("/src"))).isInstanceOf(DeleteOutcome.Gone.class);
    assertThat(create("/src", CreateRequest.of("text/plain")))
        .isInstanceOf(CreateOutcome.NameRetained.class);
    assertThat(fork("/g", ForkPoint.atTail("/src"))).isInstanceOf(CreateOutcome.SourceGone.class);
    assertThat(bodies(readAll("/f"))).containsExactly("kept");
    assertThat(join(service.list(new ListQuery("", Optional.empty(), 10))).streams())
        .extracting(StreamDescription::name)
        .containsExactly("/f");

    join(service.delete("/f"));
    assertThat(join(service.head("/src"))).isInstanceOf(HeadOutcome.NotFound.class);
    assertThat(create("/src", CreateRequest.of("text/plain")))
        .isInstanceOf(CreateOutcome.Created.class);
  }

  @Test
  void softDeletesCascadeUpAChain() {
    create("/l0", createWith("text/plain", false, "A"));
    fork("/l1", ForkPoint.atTail("/l0"));
    append("/l1", "B");
    fork("/l2", ForkPoint.atTail("/l1"));
    join(service.delete("/l0"));
    join(service.delete("/l1"));
    assertThat(bodies(readAll("/l2"))).containsExactly("A", "B");
    join(service.delete("/l2"));
    assertThat(join(service.head("/l1"))).isInstanceOf(HeadOutcome.NotFound.class);
    assertThat(join(service.head("/l0"))).isInstanceOf(HeadOutcome.NotFound.class);
  }

  @Test
  void anExpiringSourceWithForksIsSoftDeleted() {
    create(
        "/src",
        new CreateRequest(
            Optional.of("text/plain"),
            Optional.of(new Expiry.Ttl(1)),
            false,
            records("data"),
            Optional.empty()));
    create(
        "/f",
        new CreateRequest(
            Optional.empty(),
            Optional.of(new Expiry.Ttl(60)),
            false,
            List.of(),
            Optional.of(ForkPoint.atTail("/src"))));
    clock.advance(Duration.ofSeconds(2));
    assertThat(join(service.head("/src"))).isInstanceOf(HeadOutcome.Gone.class);
    assertThat(bodies(readAll("/f"))).containsExactly("data");
  }

  // ---- list ---------------------------------------------------------------------------------

  @Test
  void listPagesThroughNamesInOrder() {
    for (String name : List.of("/logs/b", "/logs/a", "/logs/c", "/other", "/logs2")) {
      create(name, CreateRequest.of("text/plain"));
    }
    var first = join(service.list(new ListQuery("/logs/", Optional.empty(), 2)));
    assertThat(first.streams())
        .extracting(StreamDescription::name)
        .containsExactly("/logs/a", "/logs/b");
    assertThat(first.hasMore()).isTrue();
    var second = join(service.list(new ListQuery("/logs/", Optional.of("/logs/b"), 2)));
    assertThat(second.streams()).extracting(StreamDescription::name).containsExactly("/logs/c");
    assertThat(second.hasMore()).isFalse();
    var all = join(service.list(new ListQuery("", Optional.empty(), 100)));
    assertThat(all.streams()).hasSize(5);
  }

  // ---- helpers ------------------------------------------------------------------------------

  protected static <T> T join(CompletableFuture<T> future) {
    return future.join();
  }

  protected CreateOutcome create(String name, CreateRequest request) {
    return join(service.create(name, request));
  }

  private CreateOutcome fork(String name, ForkPoint point) {
    return create(
        name,
        new CreateRequest(
            Optional.empty(), Optional.empty(), false, List.of(), Optional.of(point)));
  }

  private static CreateRequest withExpiry(String contentType, Expiry expiry) {
    return new CreateRequest(
        Optional.of(contentType), Optional.of(expiry), false, List.of(), Optional.empty());
  }

  private static CreateRequest createWith(String contentType, boolean closed, String... bodies) {
    return new CreateRequest(
        Optional.of(contentType), Optional.empty(), closed, records(bodies), Optional.empty());
  }

  protected static List<NewRecord> records(String... bodies) {
    List<NewRecord> records = new ArrayList<>();
    for (String body : bodies) {
      records.add(NewRecord.of(body.getBytes(UTF_8)));
    }
    return records;
  }

  protected AppendVerdict append(String name, String... bodies) {
    return join(service.append(name, AppendRequest.of(records(bodies))));
  }

  private AppendVerdict appendTyped(String name, String contentType) {
    return join(
        service.append(
            name,
            new AppendRequest(
                records("{}"),
                Optional.of(contentType),
                Optional.empty(),
                Optional.empty(),
                OptionalLong.empty(),
                false)));
  }

  private static AppendRequest expecting(long nextSeq) {
    return new AppendRequest(
        records("c"),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        OptionalLong.of(nextSeq),
        false);
  }

  private AppendVerdict writerSeq(String name, String writerSeq) {
    return join(
        service.append(
            name,
            new AppendRequest(
                records("w" + writerSeq),
                Optional.empty(),
                Optional.empty(),
                Optional.of(writerSeq),
                OptionalLong.empty(),
                false)));
  }

  private AppendVerdict produce(String name, String producer, long epoch, long seq) {
    return join(
        service.append(
            name,
            new AppendRequest(
                records(producer + epoch + "." + seq), Optional.empty(),
                Optional.of(new ProducerTag(producer, epoch, seq)), Optional.empty(),
                OptionalLong.empty(), false)));
  }

  protected ReadOutcome.Batch read(String name, long from, int maxRecords, long maxBytes) {
    return (ReadOutcome.Batch) join(service.read(name, new ReadWindow(from, maxRecords, maxBytes)));
  }

  protected ReadOutcome.Batch readAll(String name) {
    return read(name, 0, Integer.MAX_VALUE, Long.MAX_VALUE);
  }

  protected StreamDescription head(String name) {
    return ((HeadOutcome.Found) join(service.head(name))).stream();
  }

  protected static List<String> bodies(ReadOutcome.Batch batch) {
    return batch.records().stream().map(record -> new String(record.body(), UTF_8)).toList();
  }
}
