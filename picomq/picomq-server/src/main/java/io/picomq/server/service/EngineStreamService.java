package io.picomq.server.service;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.meta.apply.Outcome;
import io.picomq.meta.apply.RejectReason;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.MetadataState;
import io.picomq.protocol.Envelope;
import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.service.Registration.ForkOrigin;
import io.picomq.server.service.Registration.ProducerState;
import io.picomq.server.service.Registration.Segment;
import io.picomq.server.stream.AppendOutcome;
import io.picomq.server.stream.AppendRequest;
import io.picomq.server.stream.CreateOutcome;
import io.picomq.server.stream.CreateRequest;
import io.picomq.server.stream.DeleteOutcome;
import io.picomq.server.stream.Expiry;
import io.picomq.server.stream.ForkPoint;
import io.picomq.server.stream.HeadOutcome;
import io.picomq.server.stream.ListRequest;
import io.picomq.server.stream.NewRecord;
import io.picomq.server.stream.ProducerStamp;
import io.picomq.server.stream.ReadOutcome;
import io.picomq.server.stream.ReadRequest;
import io.picomq.server.stream.StreamInfo;
import io.picomq.server.stream.StreamPage;
import io.picomq.server.stream.StreamRecord;
import io.picomq.server.stream.StreamService;
import io.picomq.server.stream.StreamUnavailableException;
import io.picomq.server.stream.StreamUnusableException;
import io.picomq.server.stream.TrimOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream service of a node: names in the metadata KV, records in the engine.
 *
 * <h2>Design</h2>
 *
 * <ul>
 *   <li>Registry: each name's {@link Registration} lives in the metadata KV under {@code
 *       stream/<name>}. Create allocates an engine stream, writes the initial records, then puts
 *       the entry if absent: a racing create on another node loses in the log and destroys its
 *       stream. Every later change of an entry (producer state, writer seq, closed flag, trim, fork
 *       references, soft delete) is a KV put proposed in order per name ({@link
 *       LiveStream#persisted} chains them), so the log holds them in the order they were decided.
 *   <li>Appends: validated and handed to the engine under the stream's lock; the durability wait is
 *       outside it. An append that changes the entry (a producer, a writer seq, a close) stores
 *       that change as a {@link BatchStamp} in its own batch, and is acknowledged after both its
 *       records are durable and the entry holding its effect is applied. An entry is written only
 *       once every append it reflects is durable, and says up to which seq it covers the stamps;
 *       loading a stream replays the stamps past that point ({@link #replayStamps}). So a retry
 *       after a crash at any point is a duplicate exactly when its records are in the stream.
 *   <li>Waiters wake when the engine confirms the append that passes them, before the append's
 *       caller hears of it.
 *   <li>Expiry: on every access, and by {@link #expireDue()} which the node calls every second. A
 *       sweep looks only at the streams due by then ({@link ExpiryQueue}), so a node with many
 *       loaded streams and nothing expiring does nothing each second. The sliding TTL's activity is
 *       tracked in memory and written through with the entry's other changes; after a restart a
 *       stream's window restarts at the later of the stored activity and the load time, so a
 *       restart never expires a stream early.
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * Each call runs on {@code executor} (virtual threads): it may block on the metadata log and on
 * engine futures. {@link #structure} serializes the operations that change several entries at once
 * (delete, expiry, forks and their references, loading a name); plain creates, appends, reads and
 * trims take only the stream's own lock. Lock order: {@code structure} before a stream's lock, a
 * fork before its source.
 */
public final class EngineStreamService implements StreamService {
  private static final Logger LOG = LoggerFactory.getLogger(EngineStreamService.class);
  private static final String KEY_PREFIX = "stream/";
  private static final String DEFAULT_CONTENT_TYPE = "application/octet-stream";
  private static final int MAX_FETCH_BYTES = 4 << 20;
  private static final int MIN_FETCH_BYTES = 64 << 10;

  /** How long a call may wait on storage or the metadata log, unless the node says otherwise. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Plain appends do not write the entry; once this many records (or {@link #CHECKPOINT_BYTES})
   * passed since the entry's {@code stampedThrough}, one entry write moves it up, so loading a
   * stream replays a bounded tail.
   */
  private static final long CHECKPOINT_RECORDS = 4096;

  private static final long CHECKPOINT_BYTES = 16L << 20;

  private final MetadataPlane plane;
  private final StreamEngine engine;
  private final InstantSource clock;
  private final Executor executor;
  private final ByteBufAllocator allocator;
  private final EntryLog entries;
  private final Failures failures;

  /** Guards the set of names (create, delete, expiry, fork references) and {@link #loading}. */
  private final ReentrantLock structure = new ReentrantLock();

  /** Loaded names. Any thread reads; changed under {@link #structure}. */
  private final ConcurrentHashMap<String, LiveStream> live = new ConcurrentHashMap<>();

  /** Names deleted for good whose registry entry is not yet removed in the log. */
  private final ConcurrentHashMap<String, CompletableFuture<Void>> removing =
      new ConcurrentHashMap<>();

  /** Loaded streams that can expire, by deadline: what {@link #expireDue()} looks at. */
  private final ExpiryQueue<LiveStream> expiring = new ExpiryQueue<>();

  /**
   * Names whose stream was forgotten after a failed append, until its engine stream settled: a
   * lookup waits for it before loading the name again, so the tail it loads is the durable one.
   */
  private final ConcurrentHashMap<String, CompletableFuture<Void>> settling =
      new ConcurrentHashMap<>();

  /** Names whose unusable entry was logged already (once per process, not once per listing). */
  private final Set<String> reportedUnusable = ConcurrentHashMap.newKeySet();

  /** Engine streams this service has open, by id (a fork reads its sources' streams). */
  private final ConcurrentHashMap<Long, Stream> engineStreams = new ConcurrentHashMap<>();

  public EngineStreamService(
      MetadataPlane plane,
      StreamEngine engine,
      InstantSource clock,
      Executor executor,
      ByteBufAllocator allocator) {
    this(plane, engine, clock, executor, allocator, DEFAULT_REQUEST_TIMEOUT);
  }

  /**
   * @param requestTimeout the longest any call waits on storage or the metadata log before it fails
   *     with {@link StreamUnavailableException} (see {@link Failures})
   */
  public EngineStreamService(
      MetadataPlane plane,
      StreamEngine engine,
      InstantSource clock,
      Executor executor,
      ByteBufAllocator allocator,
      Duration requestTimeout) {
    this(plane, engine, clock, executor, allocator, EntryLog.of(plane), requestTimeout);
  }

  /** With {@code entries} in the path of every registry entry update (tests inject faults). */
  EngineStreamService(
      MetadataPlane plane,
      StreamEngine engine,
      InstantSource clock,
      Executor executor,
      ByteBufAllocator allocator,
      EntryLog entries) {
    this(plane, engine, clock, executor, allocator, entries, DEFAULT_REQUEST_TIMEOUT);
  }

  EngineStreamService(
      MetadataPlane plane,
      StreamEngine engine,
      InstantSource clock,
      Executor executor,
      ByteBufAllocator allocator,
      EntryLog entries,
      Duration requestTimeout) {
    this.failures = new Failures(plane, engine, requestTimeout);
    this.plane = plane;
    this.engine = engine;
    this.clock = clock;
    this.executor = executor;
    this.allocator = allocator;
    this.entries = entries;
  }

  // ---- the contract ---------------------------------------------------------------------------

  @Override
  public CompletableFuture<CreateOutcome> create(String name, CreateRequest request) {
    return failures.bound(async(() -> createBlocking(name, request)), true);
  }

  @Override
  public CompletableFuture<AppendOutcome> append(String name, AppendRequest request) {
    // A loaded stream takes the append on the caller's thread, so one caller's pipelined appends
    // (an idempotent producer's seqs 0, 1, 2 sent without waiting) keep their order. Nothing on
    // this path blocks: the engine copies the payload and assigns offsets at once.
    LiveStream loaded = live.get(name);
    if (loaded != null && !expiredNow(loaded)) {
      try {
        return failures.bound(appendTo(loaded, request), true);
      } catch (RuntimeException e) {
        return failures.bound(CompletableFuture.failedFuture(e), true);
      }
    }
    return failures.bound(
        async(() -> appendBlocking(name, request)).thenCompose(future -> future), true);
  }

  @Override
  public CompletableFuture<ReadOutcome> read(String name, ReadRequest request) {
    if (Thread.currentThread().isVirtual()) {
      // A virtual thread may block: reading on it saves a second thread and a hand-off for every
      // read, which is most of what a live reader costs (each SSE delivery is one read).
      try {
        return CompletableFuture.completedFuture(readBlocking(name, request));
      } catch (RuntimeException e) {
        return failures.bound(CompletableFuture.failedFuture(e), false);
      }
    }
    return failures.bound(async(() -> readBlocking(name, request)), false);
  }

  @Override
  public CompletableFuture<Void> awaitBeyond(String name, long seq) {
    CompletableFuture<Void> signal = new CompletableFuture<>();
    LiveStream stream = live.get(name);
    if (stream != null) {
      register(stream, seq, signal);
    } else if (plane.state().kvValue(key(name)).isEmpty()) {
      signal.complete(null);
    } else {
      executor.execute(
          () -> {
            try {
              LiveStream loaded = lookup(name);
              if (loaded == null) {
                signal.complete(null);
              } else {
                register(loaded, seq, signal);
              }
            } catch (RuntimeException e) {
              signal.completeExceptionally(failures.translate(e, false));
            }
          });
    }
    return signal;
  }

  @Override
  public CompletableFuture<HeadOutcome> head(String name) {
    return bound(
        false,
        () -> {
          LiveStream stream = lookup(name);
          if (stream == null) {
            return new HeadOutcome.NotFound();
          }
          stream.lock.lock();
          try {
            return stream.registration.softDeleted()
                ? new HeadOutcome.Gone()
                : new HeadOutcome.Found(info(stream));
          } finally {
            stream.lock.unlock();
          }
        });
  }

  @Override
  public CompletableFuture<DeleteOutcome> delete(String name) {
    return bound(
        true,
        () -> {
          if (!live.containsKey(name) && unusableReason(plane.state(), name).isPresent()) {
            return deleteUnusable(name);
          }
          CompletableFuture<Void> done;
          boolean retained;
          structure.lock();
          try {
            LiveStream stream = lookup(name);
            if (stream == null) {
              return new DeleteOutcome.NotFound();
            }
            if (softDeleted(stream)) {
              return new DeleteOutcome.Gone();
            }
            retained = forkRefs(stream) > 0;
            done = end(stream);
          } finally {
            structure.unlock();
          }
          failures.await(done);
          return new DeleteOutcome.Deleted(retained);
        });
  }

  @Override
  public CompletableFuture<TrimOutcome> trim(String name, long beforeSeq) {
    return bound(
        true,
        () -> {
          LiveStream stream = lookup(name);
          if (stream == null) {
            return new TrimOutcome.NotFound();
          }
          CompletableFuture<Void> persisted;
          long startSeq;
          boolean trimEngine;
          stream.lock.lock();
          try {
            Registration registration = stream.registration;
            if (stream.removed) {
              return new TrimOutcome.NotFound();
            }
            if (registration.softDeleted()) {
              return new TrimOutcome.Gone();
            }
            if (beforeSeq > stream.confirmedTail) {
              return new TrimOutcome.BeyondTail(stream.confirmedTail);
            }
            touch(stream);
            if (beforeSeq <= registration.startSeq()) {
              return new TrimOutcome.Trimmed(registration.startSeq());
            }
            startSeq = beforeSeq;
            persisted = persist(stream, registration.withStartSeq(startSeq), stream.persisted);
            // Forks may read below the new start through this stream's engine stream: keep it.
            trimEngine = registration.forkRefs() == 0 && startSeq > registration.ownSeqStart();
          } finally {
            stream.lock.unlock();
          }
          failures.await(persisted);
          if (trimEngine) {
            Segment own = stream.registration.own();
            stream
                .own
                .trim(own.offsetOf(startSeq))
                .exceptionally(
                    failure -> {
                      LOG.warn("engine trim of {} failed; retried on the next trim", name, failure);
                      return null;
                    });
          }
          return new TrimOutcome.Trimmed(startSeq);
        });
  }

  @Override
  public CompletableFuture<StreamPage> list(ListRequest request) {
    return bound(false, () -> listBlocking(request));
  }

  // ---- create ---------------------------------------------------------------------------------

  /**
   * A plain create takes no service-wide lock: concurrent creates allocate, open and register their
   * streams in parallel, so their commands share log rows (group commit), and the log settles two
   * creates of one name (put-if-absent). A fork changes its source's entry too, so it runs under
   * {@link #structure}.
   */
  private CreateOutcome createBlocking(String name, CreateRequest request) {
    CompletableFuture<Void> removal = removing.get(name);
    if (removal != null) {
      failures.await(removal.exceptionally(ignored -> null)); // free once its delete applied
    }
    if (request.fork().isEmpty()) {
      LiveStream existing = lookup(name);
      return existing != null ? repeatedCreate(existing, request) : createPlain(name, request);
    }
    structure.lock();
    try {
      LiveStream existing = lookup(name);
      if (existing != null) {
        return repeatedCreate(existing, request);
      }
      return createFork(name, request, request.fork().get());
    } finally {
      structure.unlock();
    }
  }

  private CreateOutcome repeatedCreate(LiveStream existing, CreateRequest request) {
    existing.lock.lock();
    try {
      if (existing.registration.softDeleted()) {
        return new CreateOutcome.NameRetained();
      }
      String mismatch = configMismatch(existing.registration, request);
      return mismatch == null
          ? new CreateOutcome.Exists(info(existing))
          : new CreateOutcome.Conflict(mismatch);
    } finally {
      existing.lock.unlock();
    }
  }

  private CreateOutcome createPlain(String name, CreateRequest request) {
    long now = clock.millis();
    Stream own = openNew();
    long timestamp = now;
    if (!request.records().isEmpty()) {
      appendDurably(own, request.records(), timestamp);
    }
    Registration registration =
        new Registration(
            own.streamId(),
            request.contentType().orElse(DEFAULT_CONTENT_TYPE),
            request.expiry().orElse(Expiry.NEVER),
            now,
            request.closed(),
            false,
            0,
            0,
            Optional.empty(),
            List.of(new Segment(own.streamId(), 0, Segment.OPEN_END, 0)),
            Optional.empty(),
            Map.of(),
            request.records().size());
    return register(name, own, registration, request.records().isEmpty() ? 0 : timestamp, request);
  }

  private CreateOutcome createFork(String name, CreateRequest request, ForkPoint point) {
    LiveStream source = lookup(point.source());
    if (source == null) {
      return new CreateOutcome.SourceNotFound();
    }
    Registration sourceEntry;
    long sourceTail;
    source.lock.lock();
    try {
      sourceEntry = source.registration;
      sourceTail = source.confirmedTail;
    } finally {
      source.lock.unlock();
    }
    if (sourceEntry.softDeleted()) {
      return new CreateOutcome.SourceGone();
    }
    if (request.contentType().isPresent()
        && !StreamService.sameMediaType(request.contentType().get(), sourceEntry.contentType())) {
      return new CreateOutcome.Conflict(
          "a fork keeps its source's content type " + sourceEntry.contentType());
    }
    long seq = point.seq().orElse(sourceTail);
    if (seq > sourceTail) {
      return new CreateOutcome.InvalidForkPoint(
          "fork seq " + seq + " is past the source's tail " + sourceTail);
    }
    StreamRecord split = null;
    if (point.partialBytes() > 0) {
      if (seq == sourceTail) {
        return new CreateOutcome.InvalidForkPoint("no record at fork seq " + seq + " to split");
      }
      split = readRecords(sourceEntry, seq, seq + 1, 1, Long.MAX_VALUE).getFirst();
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
    long lastTimestamp =
        seq == 0 ? 0 : readRecords(sourceEntry, seq - 1, seq, 1, 1).getFirst().timestampMillis();
    long now = clock.millis();
    Stream own = openNew();
    if (split != null) {
      appendDurably(
          own,
          List.of(
              new NewRecord(split.headers(), Arrays.copyOf(split.body(), point.partialBytes()))),
          split.timestampMillis());
      lastTimestamp = split.timestampMillis();
    }
    long timestamp = Math.max(now, lastTimestamp);
    if (!request.records().isEmpty()) {
      appendDurably(own, request.records(), timestamp);
      lastTimestamp = timestamp;
    }
    List<Segment> segments = new ArrayList<>();
    for (Segment segment : sourceEntry.segments()) {
      long end = Math.min(segment.seqEnd(), seq);
      if (segment.seqStart() < end) {
        segments.add(
            new Segment(segment.streamId(), segment.seqStart(), end, segment.offsetStart()));
      }
    }
    segments.add(new Segment(own.streamId(), seq, Segment.OPEN_END, 0));
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
            segments,
            Optional.empty(),
            Map.of(),
            seq + (split != null ? 1 : 0) + request.records().size());
    CreateOutcome outcome = register(name, own, registration, lastTimestamp, request);
    if (outcome instanceof CreateOutcome.Created) {
      source.lock.lock();
      CompletableFuture<Void> counted;
      try {
        counted =
            persist(
                source,
                source.registration.withForkRefs(source.registration.forkRefs() + 1),
                source.persisted);
      } finally {
        source.lock.unlock();
      }
      failures.await(counted);
    }
    return outcome;
  }

  /**
   * Puts the entry if the name is still free in the log; a create that lost a race destroys its
   * engine stream and answers as a repeated create.
   */
  private CreateOutcome register(
      String name,
      Stream own,
      Registration registration,
      long lastTimestamp,
      CreateRequest request) {
    Result result =
        failures.await(
            plane.propose(new Command.KvPutIfAbsent(key(name), KvValue.of(registration.encode()))));
    if (result instanceof Result.Rejected rejected) {
      own.destroy();
      if (rejected.reason() != RejectReason.KEY_EXISTS) {
        throw new IllegalStateException("registering " + name + " failed: " + rejected.message());
      }
      LiveStream winner = lookup(name);
      return winner == null
          ? new CreateOutcome.Conflict("the stream was created and removed concurrently")
          : repeatedCreate(winner, request);
    }
    long tail = registration.ownSeqStart() + own.confirmOffset();
    engineStreams.put(own.streamId(), own);
    LiveStream created =
        new LiveStream(name, own, registration, tail, lastTimestamp, registration.activityMillis());
    created.stampedThroughProposed = registration.stampedThrough();
    // A racing create that lost may have loaded this very entry already: keep that one.
    LiveStream raced = live.putIfAbsent(name, created);
    if (raced == null) {
      track(created);
    }
    LiveStream stream = raced != null ? raced : created;
    stream.lock.lock();
    try {
      return new CreateOutcome.Created(info(stream));
    } finally {
      stream.lock.unlock();
    }
  }

  /** Why a repeated create differs from the existing stream, or null when it does not. */
  private static String configMismatch(Registration existing, CreateRequest request) {
    boolean fork = request.fork().isPresent();
    String contentType =
        request.contentType().orElse(fork ? existing.contentType() : DEFAULT_CONTENT_TYPE);
    if (!StreamService.sameMediaType(contentType, existing.contentType())) {
      return "the stream exists with content type " + existing.contentType();
    }
    Expiry expiry = request.expiry().orElse(fork ? existing.expiry() : Expiry.NEVER);
    if (!expiry.equals(existing.expiry())) {
      return "the stream exists with another expiry";
    }
    if (request.closed() != existing.closed()) {
      return existing.closed()
          ? "the stream exists and is closed"
          : "the stream exists and is open";
    }
    if (fork != existing.fork().isPresent()) {
      return fork ? "the stream exists and is not a fork" : "the stream exists as a fork";
    }
    if (fork) {
      ForkPoint point = request.fork().get();
      ForkOrigin origin = existing.fork().get();
      boolean same =
          point.source().equals(origin.source())
              && (point.seq().isEmpty() || point.seq().getAsLong() == origin.seq())
              && point.partialBytes() == origin.partialBytes();
      if (!same) {
        return "the stream exists as a fork from another point";
      }
    }
    return null;
  }

  private Stream openNew() {
    Outcome.StreamsCreated created =
        (Outcome.StreamsCreated) failures.await(plane.proposeAccepted(new Command.CreateStream()));
    return failures.await(engine.openStream(created.firstStreamId()));
  }

  private void appendDurably(Stream stream, List<NewRecord> records, long timestampMillis) {
    ByteBuf payload = RecordBatchPayload.encode(records, timestampMillis, allocator);
    try {
      io.picomq.s3stream.api.AppendOutcome outcome =
          failures.await(stream.append(records.size(), payload));
      if (!(outcome instanceof io.picomq.s3stream.api.AppendOutcome.Appended)) {
        throw failures.refused(outcome);
      }
    } finally {
      payload.release();
    }
  }

  // ---- append ---------------------------------------------------------------------------------

  private CompletableFuture<AppendOutcome> appendBlocking(String name, AppendRequest request) {
    LiveStream stream = lookup(name);
    if (stream == null) {
      return CompletableFuture.completedFuture(new AppendOutcome.NotFound());
    }
    return appendTo(stream, request);
  }

  private CompletableFuture<AppendOutcome> appendTo(LiveStream stream, AppendRequest request) {
    CompletableFuture<AppendOutcome> answer;
    stream.lock.lock();
    try {
      Registration registration = stream.registration;
      if (stream.forgotten) {
        // An earlier append failed after this caller found the stream: load it afresh.
        return async(() -> appendBlocking(stream.name, request)).thenCompose(future -> future);
      }
      if (stream.removed) {
        return CompletableFuture.completedFuture(new AppendOutcome.NotFound());
      }
      if (registration.softDeleted()) {
        return CompletableFuture.completedFuture(new AppendOutcome.Gone());
      }
      touch(stream);
      AppendOutcome refused = judge(stream, registration, request);
      if (refused != null) {
        return CompletableFuture.completedFuture(refused);
      }
      Map<String, ProducerState> producers = registration.producers();
      if (request.producer().isPresent()) {
        ProducerStamp stamp = request.producer().get();
        producers = new HashMap<>(producers);
        producers.put(stamp.id(), new ProducerState(stamp.epoch(), stamp.seq()));
      }
      boolean changesEntry =
          request.producer().isPresent() || request.writerSeq().isPresent() || request.close();
      Registration next =
          registration
              .withWriter(request.writerSeq().or(registration::writerSeq), producers)
              .withClosed(registration.closed() || request.close())
              .withActivity(stream.activityMillis);
      if (request.records().isEmpty()) {
        answer = closeOnly(stream, next);
      } else {
        BatchStamp stamp = new BatchStamp(request.producer(), request.writerSeq(), request.close());
        answer = handToEngine(stream, request, next, stamp);
      }
    } finally {
      stream.lock.unlock();
    }
    return answer;
  }

  /** The refusal of this append, checked in the contract's order, or null to go on. */
  private static AppendOutcome judge(
      LiveStream stream, Registration registration, AppendRequest request) {
    if (!request.records().isEmpty()
        && request.contentType().isPresent()
        && !StreamService.sameMediaType(request.contentType().get(), registration.contentType())) {
      return new AppendOutcome.ContentTypeMismatch(registration.contentType());
    }
    if (request.producer().isPresent()) {
      AppendOutcome refused = judgeProducer(stream, registration, request.producer().get());
      if (refused != null) {
        return refused;
      }
    }
    if (registration.closed()) {
      if (request.records().isEmpty() && request.producer().isEmpty()) {
        return null; // closing again succeeds; closeOnly answers
      }
      return new AppendOutcome.Closed(stream.assignedTail);
    }
    if (request.writerSeq().isPresent() && registration.writerSeq().isPresent()) {
      String last = registration.writerSeq().get();
      String received = request.writerSeq().get();
      if (Arrays.compareUnsigned(
              received.getBytes(StandardCharsets.UTF_8), last.getBytes(StandardCharsets.UTF_8))
          <= 0) {
        return new AppendOutcome.WriterSeqRegression(last, received);
      }
    }
    if (request.expectedNextSeq().isPresent()
        && request.expectedNextSeq().getAsLong() != stream.assignedTail) {
      return new AppendOutcome.TailMismatch(
          request.expectedNextSeq().getAsLong(), stream.assignedTail);
    }
    return null;
  }

  private static AppendOutcome judgeProducer(
      LiveStream stream, Registration registration, ProducerStamp stamp) {
    ProducerState known = registration.producers().get(stamp.id());
    if (known == null) {
      return stamp.seq() == 0 ? null : new AppendOutcome.SeqGap(0, stamp.seq());
    }
    if (stamp.epoch() < known.epoch()) {
      return new AppendOutcome.StaleEpoch(known.epoch());
    }
    if (stamp.epoch() > known.epoch()) {
      return stamp.seq() == 0
          ? null
          : new AppendOutcome.EpochMustStartAtZero(stamp.epoch(), stamp.seq());
    }
    if (stamp.seq() <= known.lastSeq()) {
      return new AppendOutcome.Duplicate(
          known.lastSeq(), stream.assignedTail, registration.closed());
    }
    if (stamp.seq() == known.lastSeq() + 1) {
      return null;
    }
    return new AppendOutcome.SeqGap(known.lastSeq() + 1, stamp.seq());
  }

  /** Under the stream's lock: seal without records, once everything before is durable. */
  private CompletableFuture<AppendOutcome> closeOnly(LiveStream stream, Registration next) {
    long tail = stream.assignedTail;
    long timestamp = stream.lastTimestampMillis;
    boolean wasClosed = stream.registration.closed();
    CompletableFuture<Void> persisted =
        wasClosed ? stream.persisted : persist(stream, next, stream.lastAppend);
    return persisted.thenApply(
        ignored -> {
          wakeDue(stream);
          return new AppendOutcome.Accepted(tail, tail, timestamp, true);
        });
  }

  /**
   * Under the stream's lock: assigns seqs and hands the records to the engine, with the stamp of
   * what the append changes in the entry stored in the same batch (see {@link #replayStamps}).
   */
  private CompletableFuture<AppendOutcome> handToEngine(
      LiveStream stream, AppendRequest request, Registration next, BatchStamp stamp) {
    int count = request.records().size();
    long timestamp = Math.max(clock.millis(), stream.lastTimestampMillis);
    long startSeq = stream.assignedTail;
    long nextSeq = startSeq + count;
    ByteBuf payload = RecordBatchPayload.encode(request.records(), timestamp, stamp, allocator);
    int payloadBytes = payload.readableBytes();
    CompletableFuture<io.picomq.s3stream.api.AppendOutcome> appended;
    try {
      appended = stream.own.append(count, payload);
    } catch (RuntimeException e) {
      payload.release();
      throw e;
    }
    stream.assignedTail = nextSeq;
    stream.lastTimestampMillis = timestamp;
    CompletableFuture<Void> durable =
        appended.handle(
            (outcome, failure) -> {
              payload.release();
              if (failure == null
                  && outcome instanceof io.picomq.s3stream.api.AppendOutcome.Appended) {
                confirm(stream, nextSeq);
                return null;
              }
              RuntimeException cause =
                  failure != null ? failures.translate(failure, true) : failures.refused(outcome);
              forget(stream, cause);
              throw cause;
            });
    stream.lastAppend = durable;
    stream.unstampedBytes += payloadBytes;
    CompletableFuture<Void> acknowledged;
    if (!stamp.isEmpty()) {
      // Acknowledged once the entry holds the effect too, so readers of the entry (HEAD, other
      // nodes' views, a transfer) agree with the answer; a crash before that is covered by the
      // stamp in the batch.
      acknowledged = persist(stream, next, durable);
    } else {
      stream.registration = next;
      acknowledged = durable;
      if (nextSeq - stream.stampedThroughProposed >= CHECKPOINT_RECORDS
          || stream.unstampedBytes >= CHECKPOINT_BYTES) {
        // Bounds what loading this stream replays; the answer does not wait for it.
        persist(stream, next, durable);
      }
    }
    boolean closed = next.closed();
    return acknowledged.thenApply(
        ignored -> new AppendOutcome.Accepted(startSeq, nextSeq, timestamp, closed));
  }

  /** The engine confirmed seqs below {@code nextSeq}: wake whoever waits for them. */
  private void confirm(LiveStream stream, long nextSeq) {
    List<CompletableFuture<Void>> due;
    stream.lock.lock();
    try {
      stream.confirmedTail = Math.max(stream.confirmedTail, nextSeq);
      due = stream.dueWaiters();
    } finally {
      stream.lock.unlock();
    }
    due.forEach(signal -> signal.complete(null));
  }

  /**
   * An append failed in the engine (fenced, over capacity, broken I/O): the stream's in-memory tail
   * and producer state may be ahead of what is durable, so drop the state; the next request reloads
   * it from the log once the engine stream settled ({@link Stream#settle}: the appends it took
   * before the failure are durable or failed, none after it is taken). Loading then starts from the
   * durable tail, so the next append's seq is exactly where its record lands.
   */
  private void forget(LiveStream stream, Throwable cause) {
    List<CompletableFuture<Void>> waiting = new ArrayList<>();
    stream.lock.lock();
    try {
      if (stream.forgotten) {
        return;
      }
      stream.forgotten = true;
      // Waiters re-check through a read, which reloads the stream.
      stream.waiters.forEach(waiter -> waiting.add(waiter.signal()));
      stream.waiters.clear();
    } finally {
      stream.lock.unlock();
    }
    LOG.warn("append to {} failed; reloading the stream: {}", stream.name, cause.toString());
    CompletableFuture<Void> settled = stream.own.settle().exceptionally(ignored -> null);
    settling.put(stream.name, settled);
    live.remove(stream.name, stream);
    engineStreams.remove(stream.own.streamId(), stream.own);
    settled.whenComplete((ignored, failure) -> settling.remove(stream.name, settled));
    waiting.forEach(signal -> signal.complete(null));
  }

  // ---- read -----------------------------------------------------------------------------------

  private ReadOutcome readBlocking(String name, ReadRequest request) {
    LiveStream stream = lookup(name);
    if (stream == null) {
      return new ReadOutcome.NotFound();
    }
    StreamInfo info;
    Registration registration;
    stream.lock.lock();
    try {
      registration = stream.registration;
      if (stream.removed) {
        return new ReadOutcome.NotFound();
      }
      if (registration.softDeleted()) {
        return new ReadOutcome.Gone();
      }
      touch(stream);
      info = info(stream);
    } finally {
      stream.lock.unlock();
    }
    if (request.fromSeq() < info.startSeq()) {
      return new ReadOutcome.Trimmed(info.startSeq());
    }
    if (request.fromSeq() > info.nextSeq()) {
      return new ReadOutcome.BeyondTail(info.nextSeq());
    }
    LiveStream.RecentRead recent = stream.recentRead;
    List<StreamRecord> records;
    if (recent != null
        && recent.matches(
            registration.streamId(),
            request.fromSeq(),
            info.nextSeq(),
            request.maxRecords(),
            request.maxBytes())) {
      records = recent.records();
    } else {
      records =
          readRecords(
              registration,
              request.fromSeq(),
              info.nextSeq(),
              request.maxRecords(),
              request.maxBytes());
      if (LiveStream.RecentRead.worthKeeping(request.fromSeq(), info.nextSeq(), records)) {
        stream.recentRead =
            new LiveStream.RecentRead(
                registration.streamId(),
                request.fromSeq(),
                info.nextSeq(),
                request.maxRecords(),
                request.maxBytes(),
                records);
      }
    }
    return new ReadOutcome.Batch(info, records, request.fromSeq() + records.size());
  }

  /**
   * Records {@code [fromSeq, tailSeq)} through the entry's segments, at least one when any exists,
   * then as many as fit both caps. Blocks on the engine.
   */
  private List<StreamRecord> readRecords(
      Registration registration, long fromSeq, long tailSeq, int maxRecords, long maxBytes) {
    List<StreamRecord> records = new ArrayList<>();
    long bytes = 0;
    long seq = fromSeq;
    while (seq < tailSeq && records.size() < maxRecords) {
      Segment segment = segmentOf(registration, seq);
      long segmentEnd = Math.min(segment.seqEnd(), tailSeq);
      Stream stream = engineStream(segment.streamId());
      long startOffset = segment.offsetOf(seq);
      long endOffset = segment.offsetOf(segmentEnd);
      int fetchBytes = (int) Math.max(MIN_FETCH_BYTES, Math.min(maxBytes, MAX_FETCH_BYTES));
      long before = seq;
      try (FetchResult result =
          failures.await(stream.fetch(startOffset, endOffset, fetchBytes, ReadOptions.DEFAULT))) {
        batches:
        for (FetchedBatch batch : result.batches()) {
          List<Envelope> envelopes = RecordBatchPayload.decode(batch.payload(), batch.count());
          for (int i = 0; i < envelopes.size(); i++) {
            long offset = batch.baseOffset() + i;
            if (offset < startOffset) {
              continue;
            }
            if (offset >= endOffset || records.size() >= maxRecords) {
              break batches;
            }
            Envelope envelope = envelopes.get(i);
            if (!records.isEmpty() && bytes + envelope.body().length > maxBytes) {
              return records;
            }
            records.add(
                new StreamRecord(
                    seq, envelope.timestampMillis(), envelope.headers(), envelope.body()));
            bytes += envelope.body().length;
            seq++;
          }
        }
      }
      if (seq == before) {
        throw new IllegalStateException(
            "engine stream " + segment.streamId() + " returned nothing at offset " + startOffset);
      }
    }
    return records;
  }

  private static Segment segmentOf(Registration registration, long seq) {
    Segment found = registration.segments().getFirst();
    for (Segment segment : registration.segments()) {
      if (segment.seqStart() <= seq) {
        found = segment;
      }
    }
    return found;
  }

  // ---- list -----------------------------------------------------------------------------------

  private StreamPage listBlocking(ListRequest request) {
    MetadataState state = plane.state();
    long now = clock.millis();
    String from = KEY_PREFIX + request.startAfter().orElse(request.prefix());
    List<StreamInfo> page = new ArrayList<>();
    boolean hasMore = false;
    for (Map.Entry<String, KvValue> entry :
        state.kv().tailMap(from, request.startAfter().isEmpty()).entrySet()) {
      String key = entry.getKey();
      if (!key.startsWith(KEY_PREFIX + request.prefix())) {
        break;
      }
      String name = key.substring(KEY_PREFIX.length());
      LiveStream stream = live.get(name);
      StreamInfo info;
      if (stream != null) {
        stream.lock.lock();
        try {
          if (stream.removed || stream.registration.softDeleted() || expired(stream, now)) {
            continue;
          }
          info = info(stream);
        } finally {
          stream.lock.unlock();
        }
      } else {
        Registration registration;
        try {
          registration = decode(name, entry.getValue());
        } catch (StreamUnusableException unusable) {
          continue; // reported in the log and the admin API; a listing shows usable streams
        }
        if (registration.softDeleted()
            || expired(registration.expiry(), Math.max(registration.activityMillis(), now), now)) {
          continue;
        }
        info = infoFromView(name, registration, state);
      }
      if (page.size() == request.limit()) {
        hasMore = true;
        break;
      }
      page.add(info);
    }
    return new StreamPage(page, hasMore);
  }

  private static StreamInfo infoFromView(
      String name, Registration registration, MetadataState state) {
    Segment own = registration.own();
    long end =
        state.stream(own.streamId()).map(io.picomq.meta.state.StreamRecord::endOffset).orElse(0L);
    long tail = own.seqStart() + end - own.offsetStart();
    return new StreamInfo(
        name,
        registration.streamId(),
        registration.contentType(),
        registration.expiry(),
        expiresAt(registration.expiry(), registration.activityMillis()),
        Math.min(registration.startSeq(), tail),
        tail,
        registration.closed());
  }

  // ---- lookup, expiry, deletion ---------------------------------------------------------------

  /**
   * The name's loaded state, live or soft-deleted, or null when it does not exist. Loads it from
   * the registry and opens its engine stream on first use; expires it first if its time has come.
   */
  private LiveStream lookup(String name) {
    LiveStream stream = live.get(name);
    if (stream == null) {
      CompletableFuture<Void> settled = settling.get(name);
      if (settled != null) {
        failures.await(settled); // outside the structure lock: only this name's callers wait
      }
      structure.lock();
      try {
        stream = live.get(name);
        if (stream == null) {
          stream = load(name);
          if (stream == null) {
            return null;
          }
          live.put(name, stream);
          track(stream);
        }
      } finally {
        structure.unlock();
      }
    }
    if (expiredNow(stream)) {
      CompletableFuture<Void> ended;
      structure.lock();
      try {
        if (!expiredNow(stream)) {
          return stream;
        }
        ended = end(stream);
      } finally {
        structure.unlock();
      }
      failures.await(ended);
      return softDeleted(stream) ? stream : null;
    }
    return stream;
  }

  private boolean expiredNow(LiveStream stream) {
    stream.lock.lock();
    try {
      return !stream.removed
          && !stream.registration.softDeleted()
          && expired(stream, clock.millis());
    } finally {
      stream.lock.unlock();
    }
  }

  /** Under {@link #structure}: the entry from the registry with its engine stream open, or null. */
  private LiveStream load(String name) {
    if (removing.containsKey(name)) {
      return null; // deleted; its entry is on its way out of the registry
    }
    Optional<KvValue> value = plane.state().kvValue(key(name));
    if (value.isEmpty()) {
      return null;
    }
    Registration stored = decode(name, value.get());
    Stream own = engineStream(stored.streamId());
    Segment segment = stored.own();
    long tail = segment.seqStart() + own.confirmOffset() - segment.offsetStart();
    Registration registration = replayStamps(stored, own, tail);
    long lastTimestamp;
    if (tail == 0) {
      lastTimestamp = 0;
    } else if (tail - 1 < registration.startSeq()) {
      // Trimmed to its tail: the last record may be gone from the engine. The activity written
      // with the trim is at least every timestamp assigned before it.
      lastTimestamp = registration.activityMillis();
    } else {
      lastTimestamp = readRecords(registration, tail - 1, tail, 1, 1).getFirst().timestampMillis();
    }
    long activity = Math.max(registration.activityMillis(), clock.millis());
    LiveStream stream = new LiveStream(name, own, registration, tail, lastTimestamp, activity);
    stream.stampedThroughProposed = stored.stampedThrough();
    if (!registration.equals(stored)) {
      // Write the rebuilt state through so the next load need not replay it (not waited for:
      // until it applies, the stamps in the log still say the same).
      stream.lock.lock();
      try {
        persist(stream, registration, stream.persisted);
      } finally {
        stream.lock.unlock();
      }
    }
    return stream;
  }

  /**
   * The entry with the effect of the stamps stored in this stream's own batches from the entry's
   * {@code stampedThrough} up to the durable {@code tail}: what appends that became durable did to
   * the entry when the node that took them died before writing it.
   *
   * <p>Why stamps in the log rather than an intent entry written before the append: the log is the
   * one place that says whether a batch is durable, so a stamp stored in it is true exactly when
   * its records are; an intent would cost a second metadata write before every producer append and
   * still need the log to tell whether it happened. This is how Kafka rebuilds producer state from
   * the log tail past its last snapshot.
   */
  private Registration replayStamps(Registration registration, Stream own, long tail) {
    Segment segment = registration.own();
    // Below startSeq the engine may have trimmed; an entry's stampedThrough is never below the
    // startSeq it was written with, so nothing there is uncovered (a version 1 entry says 0).
    long from =
        Math.max(
            registration.stampedThrough(), Math.max(registration.startSeq(), segment.seqStart()));
    long offset = segment.offsetOf(from);
    long end = segment.offsetOf(tail);
    if (offset >= end) {
      return registration;
    }
    Map<String, ProducerState> producers = new HashMap<>(registration.producers());
    Optional<String> writerSeq = registration.writerSeq();
    boolean closed = registration.closed();
    while (offset < end) {
      long before = offset;
      try (FetchResult result =
          failures.await(own.fetch(offset, end, MAX_FETCH_BYTES, ReadOptions.DEFAULT))) {
        for (FetchedBatch batch : result.batches()) {
          if (batch.baseOffset() < offset) {
            continue; // covered already: the entry's position is always a batch boundary
          }
          BatchStamp stamp = RecordBatchPayload.stamp(batch.payload(), batch.count());
          if (stamp.producer().isPresent()) {
            ProducerStamp producer = stamp.producer().get();
            producers.put(producer.id(), new ProducerState(producer.epoch(), producer.seq()));
          }
          if (stamp.writerSeq().isPresent()) {
            writerSeq = stamp.writerSeq();
          }
          closed |= stamp.close();
          offset = batch.nextOffset();
        }
      }
      if (offset == before) {
        throw new IllegalStateException(
            "engine stream " + own.streamId() + " returned nothing at offset " + offset);
      }
    }
    return registration
        .withWriter(writerSeq, producers)
        .withClosed(closed)
        .withStampedThrough(tail);
  }

  /**
   * Under {@link #structure}: deletes or expires a live stream: soft when forks read from it (it
   * keeps its name and records), for good otherwise. Completes once the registry says so.
   */
  private CompletableFuture<Void> end(LiveStream stream) {
    List<CompletableFuture<Void>> due;
    CompletableFuture<Void> done;
    stream.lock.lock();
    try {
      if (stream.registration.forkRefs() > 0) {
        done = persist(stream, stream.registration.withSoftDeleted(), stream.persisted);
        stream.registration = stream.registration.withSoftDeleted();
        due = stream.dueWaiters();
      } else {
        done = remove(stream);
        due = stream.dueWaiters();
      }
    } finally {
      stream.lock.unlock();
    }
    due.forEach(signal -> signal.complete(null));
    return done;
  }

  /**
   * Under {@link #structure} and the stream's lock: removes the entry for good, destroys the engine
   * stream, and releases the stream's hold on its fork source (cascading up a chain of soft-deleted
   * sources).
   */
  private CompletableFuture<Void> remove(LiveStream stream) {
    stream.removed = true;
    String key = key(stream.name);
    CompletableFuture<Void> removed =
        stream
            .persisted
            .exceptionally(ignored -> null)
            .thenCompose(ignored -> plane.proposeAccepted(new Command.KvDelete(key)))
            .thenApply(ignored -> (Void) null);
    stream.persisted = removed;
    removing.put(stream.name, removed);
    removed.whenComplete((ignored, failure) -> removing.remove(stream.name, removed));
    live.remove(stream.name, stream);
    engineStreams.remove(stream.own.streamId(), stream.own);
    CompletableFuture<Void> destroyed =
        removed
            .thenCompose(ignored -> stream.own.destroy())
            .exceptionally(
                failure -> {
                  LOG.warn("destroying the engine stream of {} failed", stream.name, failure);
                  return null;
                });
    Optional<ForkOrigin> origin = stream.registration.fork();
    if (origin.isEmpty()) {
      return destroyed;
    }
    LiveStream source = live.get(origin.get().source());
    if (source == null) {
      source = load(origin.get().source());
      if (source == null) {
        return destroyed;
      }
      live.put(source.name, source);
      track(source);
    }
    CompletableFuture<Void> released;
    source.lock.lock();
    try {
      Registration entry = source.registration;
      int refs = Math.max(0, entry.forkRefs() - 1);
      if (refs == 0 && entry.softDeleted()) {
        source.registration = entry.withForkRefs(0);
        released = remove(source);
      } else {
        released = persist(source, entry.withForkRefs(refs), source.persisted);
      }
    } finally {
      source.lock.unlock();
    }
    return CompletableFuture.allOf(destroyed, released);
  }

  /**
   * Expires whatever is loaded and past its time; the node calls it every second. Looks only at the
   * streams whose queued deadline passed: one whose activity moved its deadline is queued again,
   * one that is due is ended through {@link #lookup} as any access would. A stream that fails to
   * end stays queued and is tried again on the next sweep.
   */
  public void expireDue() {
    long now = clock.millis();
    for (LiveStream stream : expiring.takeDue(now)) {
      try {
        if (expiredNow(stream)) {
          lookup(stream.name);
        }
      } catch (RuntimeException e) {
        LOG.warn("expiring {} failed; retrying on the next sweep: {}", stream.name, e.toString());
      } finally {
        track(stream);
      }
    }
  }

  /**
   * Queues a loaded stream for the sweep at its current deadline, unless it cannot expire (no
   * expiry, soft-deleted: a soft-deleted name stays until its forks go) or is gone. A stream whose
   * deadline passed is queued at it and ended by the next sweep.
   */
  private void track(LiveStream stream) {
    Optional<Instant> deadline;
    stream.lock.lock();
    try {
      deadline =
          stream.removed || stream.registration.softDeleted()
              ? Optional.empty()
              : expiresAt(stream.registration.expiry(), stream.activityMillis);
    } finally {
      stream.lock.unlock();
    }
    if (deadline.isPresent() && live.get(stream.name) == stream) {
      expiring.add(stream, epochMillisSaturated(deadline.get()));
    }
  }

  private static long epochMillisSaturated(Instant instant) {
    try {
      return instant.toEpochMilli();
    } catch (ArithmeticException e) {
      return instant.isBefore(Instant.EPOCH) ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /**
   * Loads every registered name with an expiry, so {@link #expireDue()} sees streams nobody touched
   * since this node started. Called once at start; reports every unusable entry in the log. A name
   * that fails to load is logged and skipped: whatever the metadata holds, the node starts (the
   * name expires, or answers what is wrong with it, on its next access).
   */
  public void loadExpiring() {
    for (Map.Entry<String, KvValue> entry :
        plane.state().kv().subMap(KEY_PREFIX, KEY_PREFIX + Character.MAX_VALUE).entrySet()) {
      String name = entry.getKey().substring(KEY_PREFIX.length());
      try {
        Registration registration = decode(name, entry.getValue());
        if (!(registration.expiry() instanceof Expiry.Never) && !registration.softDeleted()) {
          lookup(name);
        }
      } catch (StreamUnusableException unusable) {
        // Logged by decode.
      } catch (RuntimeException e) {
        LOG.error("loading {} at start failed; the node starts without it", name, e);
      }
    }
  }

  /**
   * The entry stored for {@code name}, decoded.
   *
   * @throws StreamUnusableException when it cannot be used, logged once per name
   */
  private Registration decode(String name, KvValue value) {
    try {
      return Registration.decode(value.toByteArray());
    } catch (IllegalStateException damaged) {
      StreamUnusableException unusable =
          new StreamUnusableException(name, damaged.getMessage(), damaged);
      if (reportedUnusable.add(name)) {
        LOG.error("{}; it answers 409 stream_unusable until deleted", unusable.getMessage());
      }
      throw unusable;
    }
  }

  /**
   * Deletes a name whose entry is unusable: removes the entry. Its engine stream, if it has one,
   * cannot be told from the damaged bytes, so it stays (logged, for the operator).
   */
  private DeleteOutcome deleteUnusable(String name) {
    structure.lock();
    try {
      failures.await(plane.proposeAccepted(new Command.KvDelete(key(name))));
    } finally {
      structure.unlock();
    }
    reportedUnusable.remove(name);
    LOG.warn("deleted the unusable entry of {}; any engine stream it had is left in storage", name);
    return new DeleteOutcome.Deleted(false);
  }

  // ---- helpers --------------------------------------------------------------------------------

  /**
   * Under the stream's lock: makes {@code next} the stream's entry and proposes it once {@code
   * after} completed, every append handed to the engine so far is durable, and every earlier write
   * of this entry applied, keeping the log in decision order. Nothing is written once the name is
   * removed.
   *
   * <p>The stored entry says it covers the stamps of every batch below the assigned tail ({@code
   * stampedThrough}): {@code next} holds the effect of every append assigned so far, and waiting
   * for the last of them to be durable keeps the entry from ever being ahead of the records (a
   * producer seq in the entry whose records were lost would answer a retry as a duplicate).
   */
  private CompletableFuture<Void> persist(
      LiveStream stream, Registration next, CompletableFuture<Void> after) {
    stream.registration = next;
    String key = key(stream.name);
    long stampedThrough = stream.assignedTail;
    stream.stampedThroughProposed = stampedThrough;
    stream.unstampedBytes = 0;
    byte[] bytes =
        next.withActivity(stream.activityMillis).withStampedThrough(stampedThrough).encode();
    // A failed earlier write was reported to its caller; this entry holds its effect anyway
    // (entries are cumulative), so the chain goes on.
    CompletableFuture<Void> previous = stream.persisted.exceptionally(ignored -> null);
    CompletableFuture<Void> written =
        CompletableFuture.allOf(previous, after, stream.lastAppend)
            .thenCompose(
                ignored -> {
                  stream.lock.lock();
                  try {
                    if (stream.removed) {
                      return CompletableFuture.completedFuture(null);
                    }
                    return entries.put(key, bytes);
                  } finally {
                    stream.lock.unlock();
                  }
                });
    stream.persisted = written;
    return written;
  }

  private void register(LiveStream stream, long seq, CompletableFuture<Void> signal) {
    boolean now;
    stream.lock.lock();
    try {
      now =
          stream.removed
              || stream.registration.softDeleted()
              || stream.closedAndSettled()
              || stream.confirmedTail > seq
              || expired(stream, clock.millis());
      if (!now) {
        stream.waiters.add(new LiveStream.Waiter(seq, signal));
      }
    } finally {
      stream.lock.unlock();
    }
    if (now) {
      signal.complete(null);
      return;
    }
    // A caller that gives up cancels; forget it so abandoned waits leak nothing.
    signal.whenComplete(
        (ignored, failure) -> {
          if (signal.isCancelled()) {
            stream.lock.lock();
            try {
              stream.waiters.removeIf(waiter -> waiter.signal() == signal);
            } finally {
              stream.lock.unlock();
            }
          }
        });
  }

  private static void wakeDue(LiveStream stream) {
    List<CompletableFuture<Void>> due;
    stream.lock.lock();
    try {
      due = stream.dueWaiters();
    } finally {
      stream.lock.unlock();
    }
    due.forEach(signal -> signal.complete(null));
  }

  private Stream engineStream(long streamId) {
    Stream stream = engineStreams.get(streamId);
    if (stream != null) {
      return stream;
    }
    Stream opened = failures.await(engine.openStream(streamId));
    Stream raced = engineStreams.putIfAbsent(streamId, opened);
    return raced != null ? raced : opened;
  }

  private void touch(LiveStream stream) {
    stream.activityMillis = Math.max(stream.activityMillis, clock.millis());
  }

  private static boolean softDeleted(LiveStream stream) {
    stream.lock.lock();
    try {
      return stream.registration.softDeleted();
    } finally {
      stream.lock.unlock();
    }
  }

  private static int forkRefs(LiveStream stream) {
    stream.lock.lock();
    try {
      return stream.registration.forkRefs();
    } finally {
      stream.lock.unlock();
    }
  }

  /** Under the stream's lock. */
  private static StreamInfo info(LiveStream stream) {
    Registration registration = stream.registration;
    return new StreamInfo(
        stream.name,
        registration.streamId(),
        registration.contentType(),
        registration.expiry(),
        expiresAt(registration.expiry(), stream.activityMillis),
        Math.min(registration.startSeq(), stream.confirmedTail),
        stream.confirmedTail,
        stream.closedAndSettled());
  }

  /**
   * When a stream with this expiry and last activity expires. A TTL's deadline saturates at the
   * largest millisecond count, so no stored TTL can overflow (an older node stored any value up to
   * 10^18 seconds): such a stream never expires.
   */
  static Optional<Instant> expiresAt(Expiry expiry, long activityMillis) {
    return switch (expiry) {
      case Expiry.Never never -> Optional.empty();
      case Expiry.Ttl ttl ->
          Optional.of(Instant.ofEpochMilli(plusSecondsSaturated(activityMillis, ttl.seconds())));
      case Expiry.At at -> Optional.of(at.instant());
    };
  }

  /** {@code millis + seconds * 1000}, or {@link Long#MAX_VALUE} past it; {@code seconds >= 0}. */
  static long plusSecondsSaturated(long millis, long seconds) {
    long add = seconds > Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : seconds * 1000;
    return millis > 0 && add > Long.MAX_VALUE - millis ? Long.MAX_VALUE : millis + add;
  }

  /** Under the stream's lock. */
  private static boolean expired(LiveStream stream, long nowMillis) {
    return expired(stream.registration.expiry(), stream.activityMillis, nowMillis);
  }

  private static boolean expired(Expiry expiry, long activityMillis, long nowMillis) {
    return expiresAt(expiry, activityMillis)
        .map(at -> !Instant.ofEpochMilli(nowMillis).isBefore(at))
        .orElse(false);
  }

  /**
   * The engine stream holding a name's own records, as the registry in {@code state} says; empty
   * for a name nobody created, and for an unusable entry (served where it is asked, which answers
   * what is wrong with it). What routing looks at.
   */
  public static java.util.OptionalLong registeredStreamId(MetadataState state, String name) {
    Optional<KvValue> value = state.kvValue(key(name));
    if (value.isEmpty()) {
      return java.util.OptionalLong.empty();
    }
    try {
      return java.util.OptionalLong.of(Registration.decode(value.get().toByteArray()).streamId());
    } catch (IllegalStateException damaged) {
      return java.util.OptionalLong.empty();
    }
  }

  /**
   * Why the name's entry in {@code state} is unusable, or empty when it is usable or absent. What
   * the admin API reports.
   */
  public static Optional<String> unusableReason(MetadataState state, String name) {
    Optional<KvValue> value = state.kvValue(key(name));
    if (value.isEmpty()) {
      return Optional.empty();
    }
    try {
      Registration.decode(value.get().toByteArray());
      return Optional.empty();
    } catch (IllegalStateException damaged) {
      return Optional.of(damaged.getMessage());
    }
  }

  static String key(String name) {
    return KEY_PREFIX + name;
  }

  private <T> CompletableFuture<T> async(Supplier<T> work) {
    return CompletableFuture.supplyAsync(work, executor);
  }

  /** {@code work} on the executor, failing typed and within the request timeout. */
  private <T> CompletableFuture<T> bound(boolean writes, Supplier<T> work) {
    return failures.bound(async(work), writes);
  }
}
