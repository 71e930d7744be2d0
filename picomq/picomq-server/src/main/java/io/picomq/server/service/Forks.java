package io.picomq.server.service;

import io.picomq.s3stream.api.Stream;
import io.picomq.server.service.Registration.ForkOrigin;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.CreateOutcome;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.ForkPoint;
import io.picomq.stream.NewRecord;
import io.picomq.stream.StreamRecord;
import io.picomq.stream.StreamService;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Creates forks: a new stream that reads its source's records below the fork point through the
 * source's engine streams ({@link Registration}'s segments) and has its own from there.
 *
 * <h2>Invariants</h2>
 *
 * A source's entry counts the forks that read through it ({@code forkRefs}); a source with forks is
 * soft-deleted, not removed ({@link Deletion}), so its engine stream stays while a fork reads it.
 * The count is written after the fork is registered, and the source's name lock ({@link NameLocks})
 * is held from checking the source to writing the count, so the source cannot end in between: a
 * delete waits and then sees the fork. A crash between the fork's registration and the count leaves
 * the count one low, as before this class existed.
 *
 * <h2>Threading</h2>
 *
 * Blocking calls on a virtual thread. The source's name lock is held across the fork's I/O (reading
 * the split record, opening and writing the fork's engine stream, registering it): only that
 * source's (stripe's) deletes and forks wait for it. The source is looked up, which may end it if
 * it expired, before the lock is taken; a lost registration is answered after it is released.
 */
final class Forks {
  private final LoadedStreams loaded;
  private final Function<String, Optional<LiveStream>> lookup;
  private final Creator creator;
  private final SegmentReader reader;
  private final EntryWriter writer;
  private final NameLocks names;
  private final ServiceFailures failures;
  private final InstantSource clock;

  /**
   * @param lookup a name's instance with expiry applied, loading it if needed (blocks)
   */
  Forks(
      LoadedStreams loaded,
      Function<String, Optional<LiveStream>> lookup,
      Creator creator,
      SegmentReader reader,
      EntryWriter writer,
      NameLocks names,
      ServiceFailures failures,
      InstantSource clock) {
    this.loaded = loaded;
    this.lookup = lookup;
    this.creator = creator;
    this.reader = reader;
    this.writer = writer;
    this.names = names;
    this.failures = failures;
    this.clock = clock;
  }

  /** What building a fork under its source's lock came to. */
  private sealed interface Built {
    /** Refused, or registered: the answer. */
    record Answered(CreateOutcome outcome) implements Built {}

    /** Another create registered the name first: answer as a repeated create of it. */
    record Lost() implements Built {}
  }

  /** Creates the fork {@code name} (which did not exist as far as this caller saw). */
  CreateOutcome create(String name, CreateRequest request, ForkPoint point) {
    if (lookup.apply(point.source()).isEmpty()) {
      return new CreateOutcome.SourceNotFound();
    }
    Built built;
    ReentrantLock guard = names.of(point.source());
    guard.lock();
    try {
      built = build(name, request, point);
    } finally {
      guard.unlock();
    }
    return switch (built) {
      case Built.Answered answered -> answered.outcome();
      case Built.Lost lost -> creator.lost(name, request);
    };
  }

  /** Under the source's name lock. */
  private Built build(String name, CreateRequest request, ForkPoint point) {
    Optional<LiveStream> found = loaded.current(point.source());
    if (found.isEmpty()) {
      return new Built.Answered(new CreateOutcome.SourceNotFound());
    }
    LiveStream source = found.get();
    Registration sourceEntry;
    long sourceTail;
    boolean removed;
    source.lock.lock();
    try {
      sourceEntry = source.registration;
      sourceTail = source.confirmedTail;
      removed = source.removed;
    } finally {
      source.lock.unlock();
    }
    if (removed) {
      return new Built.Answered(new CreateOutcome.SourceNotFound());
    }
    if (sourceEntry.softDeleted()) {
      return new Built.Answered(new CreateOutcome.SourceGone());
    }
    Optional<CreateOutcome> refused = refusal(request, point, sourceEntry, sourceTail);
    if (refused.isPresent()) {
      return new Built.Answered(refused.get());
    }
    long seq = point.seq().orElse(sourceTail);
    StreamRecord split = point.partialBytes() > 0 ? reader.record(sourceEntry, seq) : null;
    if (split != null && point.partialBytes() > split.body().length) {
      return new Built.Answered(
          new CreateOutcome.InvalidForkPoint(
              "record "
                  + seq
                  + " has "
                  + split.body().length
                  + " bytes, fewer than "
                  + point.partialBytes()));
    }
    long lastTimestamp = seq == 0 ? 0 : reader.record(sourceEntry, seq - 1).timestampMillis();
    long now = clock.millis();
    Stream own = creator.openNew();
    if (split != null) {
      creator.appendDurably(
          own,
          List.of(
              new NewRecord(split.headers(), Arrays.copyOf(split.body(), point.partialBytes()))),
          split.timestampMillis());
      lastTimestamp = split.timestampMillis();
    }
    long timestamp = Math.max(now, lastTimestamp);
    if (!request.records().isEmpty()) {
      creator.appendDurably(own, request.records(), timestamp);
      lastTimestamp = timestamp;
    }
    Registration registration =
        new Registration(
            own.streamId(),
            sourceEntry.contentType(),
            request.expiry().orElse(sourceEntry.expiry()),
            now,
            request.closed(),
            false,
            Math.min(sourceEntry.startSeq(), seq),
            0,
            Optional.of(new ForkOrigin(point.source(), seq, point.partialBytes())),
            segments(sourceEntry, seq, own.streamId()),
            Optional.empty(),
            Map.of(),
            seq + (split != null ? 1 : 0) + request.records().size());
    Optional<CreateOutcome.Created> created =
        creator.register(name, own, registration, lastTimestamp);
    if (created.isEmpty()) {
      return new Built.Lost();
    }
    countFork(point.source(), source);
    return new Built.Answered(created.get());
  }

  /** Why the fork point or the request does not fit the source, checked before any I/O. */
  private static Optional<CreateOutcome> refusal(
      CreateRequest request, ForkPoint point, Registration sourceEntry, long sourceTail) {
    if (request.contentType().isPresent()
        && !StreamService.sameMediaType(request.contentType().get(), sourceEntry.contentType())) {
      return Optional.of(
          new CreateOutcome.Conflict(
              "a fork keeps its source's content type " + sourceEntry.contentType()));
    }
    long seq = point.seq().orElse(sourceTail);
    if (seq > sourceTail) {
      return Optional.of(
          new CreateOutcome.InvalidForkPoint(
              "fork seq " + seq + " is past the source's tail " + sourceTail));
    }
    if (point.partialBytes() > 0 && seq == sourceTail) {
      return Optional.of(
          new CreateOutcome.InvalidForkPoint("no record at fork seq " + seq + " to split"));
    }
    return Optional.empty();
  }

  /** The source's segments clipped to {@code [0, seq)}, then the fork's own from {@code seq}. */
  static List<Segment> segments(Registration sourceEntry, long seq, long ownStreamId) {
    List<Segment> segments = new ArrayList<>();
    for (Segment segment : sourceEntry.segments()) {
      long end = Math.min(segment.seqEnd(), seq);
      if (segment.seqStart() < end) {
        segments.add(
            new Segment(segment.streamId(), segment.seqStart(), end, segment.offsetStart()));
      }
    }
    segments.add(new Segment(ownStreamId, seq, Segment.OPEN_END, 0));
    return segments;
  }

  /**
   * Under the source's name lock, once the fork is registered: the source's entry counts it. If the
   * source instance was forgotten meanwhile (an append to it failed), the count goes to the
   * instance loaded afresh; the name lock keeps the source from being removed in between.
   */
  private void countFork(String sourceName, LiveStream source) {
    LiveStream target = source;
    while (true) {
      CompletableFuture<Void> counted = null;
      target.lock.lock();
      try {
        if (!target.forgotten) {
          counted =
              writer.persist(
                  target,
                  target.registration.withForkRefs(target.registration.forkRefs() + 1),
                  target.persisted);
        }
      } finally {
        target.lock.unlock();
      }
      if (counted != null) {
        failures.await(counted);
        return;
      }
      Optional<LiveStream> reloaded = loaded.current(sourceName);
      if (reloaded.isEmpty()) {
        throw new IllegalStateException(
            "the fork source " + sourceName + " vanished while its name lock was held");
      }
      target = reloaded.get();
    }
  }
}
