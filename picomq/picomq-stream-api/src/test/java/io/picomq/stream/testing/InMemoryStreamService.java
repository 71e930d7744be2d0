package io.picomq.stream.testing;

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
import io.picomq.stream.StreamPage;
import io.picomq.stream.StreamRecord;
import io.picomq.stream.StreamService;
import io.picomq.stream.TrimOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * {@link StreamService} in memory, faithful to the contract: the same outcomes, ordering of checks,
 * forks, soft deletes, sliding TTLs and waiters as a real node, without durability.
 *
 * <p>Threading: one lock guards all state; every operation runs under it and returns a completed
 * future. Waiters are completed after the lock is released, never under it. Expiry is enforced on
 * access (any operation that looks a stream up), not by a background sweep: a waiter on a stream
 * that expires while nobody touches it wakes when someone does, or when its caller gives up.
 *
 * <p>Trimming only moves a stream's start; the records stay in memory, because forks may still read
 * them.
 */
public final class InMemoryStreamService implements StreamService {

  private static final String DEFAULT_CONTENT_TYPE = "application/octet-stream";

  private final InstantSource clock;
  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock.
  private final TreeMap<String, Stream> byName = new TreeMap<>();
  private long lastStreamId;

  /** Waiters found due under the lock; wakeDue() completes them once it is released. */
  private final List<CompletableFuture<Void>> due = new ArrayList<>();

  public InMemoryStreamService(InstantSource clock) {
    this.clock = clock;
  }

  @Override
  public CompletableFuture<CreateOutcome> create(String name, CreateRequest request) {
    return locked(() -> createLocked(name, request));
  }

  @Override
  public CompletableFuture<AppendVerdict> append(String name, AppendRequest request) {
    return locked(() -> appendLocked(name, request));
  }

  @Override
  public CompletableFuture<ReadOutcome> read(String name, ReadWindow request) {
    return locked(() -> readLocked(name, request));
  }

  @Override
  public CompletableFuture<HeadOutcome> head(String name) {
    return locked(
        () -> {
          Stream stream = lookup(name);
          if (stream == null) {
            return new HeadOutcome.NotFound();
          }
          return stream.softDeleted ? new HeadOutcome.Gone() : new HeadOutcome.Found(info(stream));
        });
  }

  @Override
  public CompletableFuture<DeleteOutcome> delete(String name) {
    return locked(
        () -> {
          Stream stream = lookup(name);
          if (stream == null) {
            return new DeleteOutcome.NotFound();
          }
          if (stream.softDeleted) {
            return new DeleteOutcome.Gone();
          }
          boolean retained = stream.forkRefs > 0;
          end(stream);
          return new DeleteOutcome.Deleted(retained);
        });
  }

  @Override
  public CompletableFuture<TrimOutcome> trim(String name, long beforeSeq) {
    return locked(
        () -> {
          Stream stream = lookup(name);
          if (stream == null) {
            return new TrimOutcome.NotFound();
          }
          if (stream.softDeleted) {
            return new TrimOutcome.Gone();
          }
          if (beforeSeq > stream.nextSeq()) {
            return new TrimOutcome.BeyondTail(stream.nextSeq());
          }
          stream.touch(clock.instant());
          stream.startSeq = Math.max(stream.startSeq, beforeSeq);
          return new TrimOutcome.Trimmed(stream.startSeq);
        });
  }

  @Override
  public CompletableFuture<StreamPage> list(ListQuery request) {
    return locked(
        () -> {
          Instant now = clock.instant();
          List<StreamDescription> page = new ArrayList<>();
          boolean hasMore = false;
          String from = request.startAfter().orElse(request.prefix());
          for (Stream stream : byName.tailMap(from, request.startAfter().isEmpty()).values()) {
            if (!stream.name.startsWith(request.prefix())) {
              if (stream.name.compareTo(request.prefix()) > 0) {
                break;
              }
              continue;
            }
            if (stream.softDeleted || stream.expired(now)) {
              continue;
            }
            if (page.size() == request.limit()) {
              hasMore = true;
              break;
            }
            page.add(info(stream));
          }
          return new StreamPage(page, hasMore);
        });
  }

  @Override
  public CompletableFuture<Void> awaitBeyond(String name, long seq) {
    CompletableFuture<Void> signal = new CompletableFuture<>();
    lock.lock();
    try {
      Stream stream = lookup(name);
      if (stream == null || stream.softDeleted || stream.closed || stream.nextSeq() > seq) {
        signal.complete(null);
      } else {
        stream.waiters.add(new Waiter(seq, signal));
        // A caller that gives up cancels; forget it so abandoned waits leak nothing.
        signal.whenComplete(
            (ignored, failure) -> {
              if (signal.isCancelled()) {
                forget(stream, signal);
              }
            });
      }
    } finally {
      lock.unlock();
    }
    wakeDue();
    return signal;
  }

  private void forget(Stream stream, CompletableFuture<Void> signal) {
    lock.lock();
    try {
      stream.waiters.removeIf(waiter -> waiter.signal == signal);
    } finally {
      lock.unlock();
    }
  }

  private CreateOutcome createLocked(String name, CreateRequest request) {
    Instant now = clock.instant();
    Stream existing = lookup(name);
    if (existing != null) {
      if (existing.softDeleted) {
        return new CreateOutcome.NameRetained();
      }
      String mismatch = configMismatch(existing, request);
      return mismatch == null
          ? new CreateOutcome.Exists(info(existing))
          : new CreateOutcome.Conflict(mismatch);
    }
    Stream stream;
    if (request.fork().isPresent()) {
      ForkPoint point = request.fork().get();
      Stream source = lookup(point.source());
      if (source == null) {
        return new CreateOutcome.SourceNotFound();
      }
      if (source.softDeleted) {
        return new CreateOutcome.SourceGone();
      }
      if (request.contentType().isPresent()
          && !StreamService.sameMediaType(request.contentType().get(), source.contentType)) {
        return new CreateOutcome.Conflict(
            "a fork keeps its source's content type " + source.contentType);
      }
      long seq = point.seq().orElse(source.nextSeq());
      if (seq > source.nextSeq()) {
        return new CreateOutcome.InvalidForkPoint(
            "fork seq " + seq + " is past the source's tail " + source.nextSeq());
      }
      StreamRecord split = null;
      if (point.partialBytes() > 0) {
        if (seq == source.nextSeq()) {
          return new CreateOutcome.InvalidForkPoint("no record at fork seq " + seq + " to split");
        }
        split = source.recordAt(seq);
        if (point.partialBytes() > split.body().length) {
          return new CreateOutcome.InvalidForkPoint(
              "record "
                  + seq
                  + " has "
                  + split.body().length
                  + " bytes, fewer than "
                  + point.partialBytes());
        }
      }
      stream =
          new Stream(
              name,
              ++lastStreamId,
              request.contentType().orElse(source.contentType),
              request.expiry().orElse(source.expiry),
              now);
      stream.parent = source;
      stream.inheritedUpTo = seq;
      stream.startSeq = Math.min(source.startSeq, seq);
      stream.forkPoint = new ForkPoint(point.source(), OptionalLong.of(seq), 0);
      stream.forkPartialBytes = point.partialBytes();
      stream.lastTimestamp = seq == 0 ? 0 : source.recordAt(seq - 1).timestampMillis();
      if (split != null) {
        stream.own.add(
            new StreamRecord(
                seq,
                split.timestampMillis(),
                split.headers(),
                Arrays.copyOf(split.body(), point.partialBytes())));
        stream.lastTimestamp = split.timestampMillis();
      }
      source.forkRefs++;
    } else {
      stream =
          new Stream(
              name,
              ++lastStreamId,
              request.contentType().orElse(DEFAULT_CONTENT_TYPE),
              request.expiry().orElse(Expiry.NEVER),
              now);
    }
    if (!request.records().isEmpty()) {
      stream.add(request.records(), now.toEpochMilli());
    }
    stream.closed = request.closed();
    byName.put(name, stream);
    return new CreateOutcome.Created(info(stream));
  }

  /** Why a repeated create differs from the existing stream, or null when it does not. */
  private static String configMismatch(Stream existing, CreateRequest request) {
    boolean fork = request.fork().isPresent();
    String contentType =
        request.contentType().orElse(fork ? existing.contentType : DEFAULT_CONTENT_TYPE);
    if (!StreamService.sameMediaType(contentType, existing.contentType)) {
      return "the stream exists with content type " + existing.contentType;
    }
    Expiry expiry = request.expiry().orElse(fork ? existing.expiry : Expiry.NEVER);
    if (!expiry.equals(existing.expiry)) {
      return "the stream exists with another expiry";
    }
    if (request.closed() != existing.closed) {
      return existing.closed ? "the stream exists and is closed" : "the stream exists and is open";
    }
    if (fork != (existing.forkPoint != null)) {
      return fork ? "the stream exists and is not a fork" : "the stream exists as a fork";
    }
    if (fork) {
      ForkPoint point = request.fork().get();
      boolean same =
          point.source().equals(existing.forkPoint.source())
              && (point.seq().isEmpty() || point.seq().equals(existing.forkPoint.seq()))
              && point.partialBytes() == existing.forkPartialBytes;
      if (!same) {
        return "the stream exists as a fork from another point";
      }
    }
    return null;
  }

  private AppendVerdict appendLocked(String name, AppendRequest request) {
    Instant now = clock.instant();
    Stream stream = lookup(name);
    if (stream == null) {
      return new AppendVerdict.NotFound();
    }
    if (stream.softDeleted) {
      return new AppendVerdict.Gone();
    }
    stream.touch(now);
    if (!request.records().isEmpty()
        && request.contentType().isPresent()
        && !StreamService.sameMediaType(request.contentType().get(), stream.contentType)) {
      return new AppendVerdict.ContentTypeMismatch(stream.contentType);
    }
    ProducerState proposed = null;
    if (request.producer().isPresent()) {
      ProducerTag stamp = request.producer().get();
      ProducerState known = stream.producers.get(stamp.id());
      AppendVerdict refused = judgeProducer(stream, known, stamp);
      if (refused != null) {
        return refused;
      }
      proposed = new ProducerState(stamp.epoch(), stamp.seq());
    }
    if (stream.closed) {
      if (request.records().isEmpty() && request.producer().isEmpty()) {
        return new AppendVerdict.Accepted(
            stream.nextSeq(), stream.nextSeq(), stream.lastTimestamp, true);
      }
      return new AppendVerdict.Closed(stream.nextSeq());
    }
    if (request.writerSeq().isPresent() && stream.lastWriterSeq != null) {
      String received = request.writerSeq().get();
      if (compareUtf8(received, stream.lastWriterSeq) <= 0) {
        return new AppendVerdict.WriterSeqRegression(stream.lastWriterSeq, received);
      }
    }
    if (request.expectedNextSeq().isPresent()
        && request.expectedNextSeq().getAsLong() != stream.nextSeq()) {
      return new AppendVerdict.TailMismatch(
          request.expectedNextSeq().getAsLong(), stream.nextSeq());
    }
    long startSeq = stream.nextSeq();
    long timestamp = Math.max(now.toEpochMilli(), stream.lastTimestamp);
    stream.add(request.records(), timestamp);
    if (proposed != null) {
      stream.producers.put(request.producer().get().id(), proposed);
    }
    request.writerSeq().ifPresent(writerSeq -> stream.lastWriterSeq = writerSeq);
    if (request.close()) {
      stream.closed = true;
      stream.wakeAll();
    }
    return new AppendVerdict.Accepted(startSeq, stream.nextSeq(), timestamp, stream.closed);
  }

  /** The refusal for this producer stamp, or null when the append may go on. */
  private static AppendVerdict judgeProducer(
      Stream stream, ProducerState known, ProducerTag stamp) {
    if (known == null) {
      return stamp.seq() == 0 ? null : new AppendVerdict.SeqGap(0, stamp.seq());
    }
    if (stamp.epoch() < known.epoch) {
      return new AppendVerdict.StaleEpoch(known.epoch);
    }
    if (stamp.epoch() > known.epoch) {
      return stamp.seq() == 0
          ? null
          : new AppendVerdict.EpochMustStartAtZero(stamp.epoch(), stamp.seq());
    }
    if (stamp.seq() <= known.lastSeq) {
      return new AppendVerdict.Duplicate(known.lastSeq, stream.nextSeq(), stream.closed);
    }
    if (stamp.seq() == known.lastSeq + 1) {
      return null;
    }
    return new AppendVerdict.SeqGap(known.lastSeq + 1, stamp.seq());
  }

  private static int compareUtf8(String a, String b) {
    return Arrays.compareUnsigned(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private ReadOutcome readLocked(String name, ReadWindow request) {
    Stream stream = lookup(name);
    if (stream == null) {
      return new ReadOutcome.NotFound();
    }
    if (stream.softDeleted) {
      return new ReadOutcome.Gone();
    }
    stream.touch(clock.instant());
    if (request.fromSeq() < stream.startSeq) {
      return new ReadOutcome.Trimmed(stream.startSeq);
    }
    if (request.fromSeq() > stream.nextSeq()) {
      return new ReadOutcome.BeyondTail(stream.nextSeq());
    }
    List<StreamRecord> records = new ArrayList<>();
    long bytes = 0;
    long seq = request.fromSeq();
    while (seq < stream.nextSeq() && records.size() < request.maxRecords()) {
      StreamRecord record = stream.recordAt(seq);
      if (!records.isEmpty() && bytes + record.body().length > request.maxBytes()) {
        break;
      }
      records.add(record);
      bytes += record.body().length;
      seq++;
    }
    return new ReadOutcome.Batch(info(stream), records, seq);
  }

  /**
   * The stream under this name, live or soft-deleted, or null. Expires it first if its time has
   * come: gone for good when nothing reads through it, soft-deleted otherwise.
   */
  private Stream lookup(String name) {
    Stream stream = byName.get(name);
    if (stream == null) {
      return null;
    }
    if (!stream.softDeleted && stream.expired(clock.instant())) {
      end(stream);
      return stream.softDeleted ? stream : null;
    }
    return stream;
  }

  /** Deletes or expires a live stream: soft when forks read from it, for good otherwise. */
  private void end(Stream stream) {
    if (stream.forkRefs > 0) {
      stream.softDeleted = true;
      stream.wakeAll();
    } else {
      remove(stream);
    }
  }

  /** Removes a stream for good and releases its hold on its source, cascading up the chain. */
  private void remove(Stream stream) {
    byName.remove(stream.name, stream);
    stream.wakeAll();
    Stream parent = stream.parent;
    if (parent != null) {
      parent.forkRefs--;
      if (parent.forkRefs == 0 && parent.softDeleted) {
        remove(parent);
      }
    }
  }

  private static StreamDescription info(Stream stream) {
    Optional<Instant> expiresAt =
        switch (stream.expiry) {
          case Expiry.Never never -> Optional.empty();
          case Expiry.Ttl ttl -> Optional.of(stream.lastActivity.plusSeconds(ttl.seconds()));
          case Expiry.At at -> Optional.of(at.instant());
        };
    return new StreamDescription(
        stream.name,
        stream.streamId,
        stream.contentType,
        stream.expiry,
        expiresAt,
        stream.startSeq,
        stream.nextSeq(),
        stream.closed);
  }

  private <T> CompletableFuture<T> locked(Supplier<T> operation) {
    T outcome;
    lock.lock();
    try {
      outcome = operation.get();
    } finally {
      lock.unlock();
    }
    wakeDue();
    return CompletableFuture.completedFuture(outcome);
  }

  private void wakeDue() {
    List<CompletableFuture<Void>> toWake;
    lock.lock();
    try {
      if (due.isEmpty()) {
        return;
      }
      toWake = new ArrayList<>(due);
      due.clear();
    } finally {
      lock.unlock();
    }
    toWake.forEach(signal -> signal.complete(null));
  }

  private record Waiter(long seq, CompletableFuture<Void> signal) {}

  private record ProducerState(long epoch, long lastSeq) {}

  /** One stream's state. Every field is guarded by the service's lock. */
  private final class Stream {
    final String name;
    final long streamId;
    final String contentType;
    final Expiry expiry;
    Instant lastActivity;

    /** Records [0, inheritedUpTo) are the parent's; own holds seqs inheritedUpTo and up. */
    Stream parent;

    long inheritedUpTo;
    ForkPoint forkPoint;
    int forkPartialBytes;
    final List<StreamRecord> own = new ArrayList<>();

    long startSeq;
    long lastTimestamp;
    boolean closed;
    boolean softDeleted;
    int forkRefs;
    String lastWriterSeq;
    final Map<String, ProducerState> producers = new HashMap<>();
    final List<Waiter> waiters = new ArrayList<>();

    Stream(String name, long streamId, String contentType, Expiry expiry, Instant now) {
      this.name = name;
      this.streamId = streamId;
      this.contentType = contentType;
      this.expiry = expiry;
      this.lastActivity = now;
    }

    long nextSeq() {
      return inheritedUpTo + own.size();
    }

    StreamRecord recordAt(long seq) {
      return seq < inheritedUpTo ? parent.recordAt(seq) : own.get((int) (seq - inheritedUpTo));
    }

    void add(List<NewRecord> records, long timestamp) {
      for (NewRecord record : records) {
        own.add(new StreamRecord(nextSeq(), timestamp, record.headers(), record.body()));
      }
      lastTimestamp = timestamp;
      long tail = nextSeq();
      waiters.removeIf(
          waiter -> {
            if (waiter.seq < tail) {
              due.add(waiter.signal);
              return true;
            }
            return false;
          });
    }

    void touch(Instant now) {
      lastActivity = now;
    }

    boolean expired(Instant now) {
      return switch (expiry) {
        case Expiry.Never never -> false;
        case Expiry.Ttl ttl -> !now.isBefore(lastActivity.plusSeconds(ttl.seconds()));
        case Expiry.At at -> !now.isBefore(at.instant());
      };
    }

    void wakeAll() {
      waiters.forEach(waiter -> due.add(waiter.signal));
      waiters.clear();
    }
  }
}
