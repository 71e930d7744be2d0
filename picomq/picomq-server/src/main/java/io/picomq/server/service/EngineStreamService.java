package io.picomq.server.service;

import io.netty.buffer.ByteBufAllocator;
import io.picomq.meta.state.KvValue;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.service.Deletion.Ending;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.CreateOutcome;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.DeleteOutcome;
import io.picomq.stream.Expiry;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.ListQuery;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamPage;
import io.picomq.stream.StreamRecord;
import io.picomq.stream.StreamRouter;
import io.picomq.stream.StreamService;
import io.picomq.stream.StreamUnavailableException;
import io.picomq.stream.StreamUnusableException;
import io.picomq.stream.TrimOutcome;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream service of a node: names in the metadata KV, records in the engine. A coordinator: it
 * answers the {@link StreamService} contract by looking a name up and handing the work to the part
 * that owns it.
 *
 * <h2>Design</h2>
 *
 * <ul>
 *   <li>{@link LoadedStreams}: the names this node has loaded, loaded per name on first touch;
 *       {@link Registry}: the stored entries, as routing and the admin API read them.
 *   <li>{@link Admission}: whether an append or a repeated create may go on (pure checks).
 *   <li>{@link Appender}: appends, their confirmation, and forgetting a stream whose append failed.
 *   <li>{@link EntryWriter}: writes entries in decision order, and replays the stamps in the
 *       batches when loading.
 *   <li>{@link SegmentReader}: reads records through an entry's segments ({@link EngineStreams}
 *       keeps the engine streams open).
 *   <li>{@link Creator} and {@link Forks}: creates; {@link Deletion}: deletes and expiry ends, soft
 *       while forks read a stream; {@link Expirations}: deadlines.
 *   <li>{@link Listing}: pages of names, from the metadata state without loading them.
 * </ul>
 *
 * Here: reads, heads, trims, waiters ({@link #awaitBeyond}), and expiry on every access ({@link
 * #lookup}) and by {@link #expireDue()}, which the node calls every second.
 *
 * <h2>Threading</h2>
 *
 * Each call runs on {@code executor} (virtual threads): it may block on the metadata log and on
 * engine futures, each wait bounded by the request timeout ({@link ServiceFailures}), and every
 * future returned fails typed within it. There is no service-wide lock: a stream's own lock guards
 * its state and is never held across I/O; a name lock ({@link NameLocks}) keeps a fork's source
 * from ending while the fork is built. Lock order: a name lock before a stream's lock.
 */
public final class EngineStreamService implements StreamService {
  private static final Logger LOG = LoggerFactory.getLogger(EngineStreamService.class);

  /** How long a call may wait on storage or the metadata log, unless the node says otherwise. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final MetadataPlane plane;
  private final InstantSource clock;
  private final Executor executor;
  private final ServiceFailures failures;
  private final LoadedStreams loaded;
  private final SegmentReader reader;
  private final EntryWriter writer;
  private final Appender appender;
  private final Creator creator;
  private final Forks forks;
  private final Deletion deletion;
  private final Listing listing;
  private final Handoffs handoffs;
  private final LivenessGate liveness;

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
   *     with {@link StreamUnavailableException} (see {@link ServiceFailures})
   */
  public EngineStreamService(
      MetadataPlane plane,
      StreamEngine engine,
      InstantSource clock,
      Executor executor,
      ByteBufAllocator allocator,
      Duration requestTimeout) {
    this(
        plane,
        engine,
        clock,
        executor,
        allocator,
        EntryLog.of(plane),
        requestTimeout,
        LivenessGate.ALWAYS_OPEN,
        StreamRouter.LOCAL);
  }

  /**
   * @param requestTimeout as above
   * @param liveness whether this node may still acknowledge appends (its liveness row is fresh)
   * @param router the node's routing: a stream is opened here only where it routes here, so a
   *     request that was routed before a transfer completed cannot take the stream back
   */
  public EngineStreamService(
      MetadataPlane plane,
      StreamEngine engine,
      InstantSource clock,
      Executor executor,
      ByteBufAllocator allocator,
      Duration requestTimeout,
      LivenessGate liveness,
      StreamRouter router) {
    this(
        plane,
        engine,
        clock,
        executor,
        allocator,
        EntryLog.of(plane),
        requestTimeout,
        liveness,
        router);
  }

  /** With {@code entries} in the path of every registry entry update (tests inject faults). */
  EngineStreamService(
      MetadataPlane plane,
      StreamEngine engine,
      InstantSource clock,
      Executor executor,
      ByteBufAllocator allocator,
      EntryLog entries) {
    this(
        plane,
        engine,
        clock,
        executor,
        allocator,
        entries,
        DEFAULT_REQUEST_TIMEOUT,
        LivenessGate.ALWAYS_OPEN,
        StreamRouter.LOCAL);
  }

  EngineStreamService(
      MetadataPlane plane,
      StreamEngine engine,
      InstantSource clock,
      Executor executor,
      ByteBufAllocator allocator,
      EntryLog entries,
      Duration requestTimeout,
      LivenessGate liveness,
      StreamRouter router) {
    this.plane = plane;
    this.liveness = liveness;
    this.clock = clock;
    this.executor = executor;
    this.failures = new ServiceFailures(plane, engine, requestTimeout);
    EngineStreams engineStreams = new EngineStreams(engine, failures);
    NameLocks names = new NameLocks();
    this.reader = new SegmentReader(engineStreams, failures);
    this.writer = new EntryWriter(entries, failures);
    this.loaded = new LoadedStreams(plane, engineStreams, reader, writer, failures, clock, router);
    this.appender =
        new Appender(loaded, this::lookup, writer, failures, clock, executor, allocator);
    this.creator = new Creator(plane, engine, loaded, this::lookup, failures, clock, allocator);
    this.forks = new Forks(loaded, this::lookup, creator, reader, writer, names, failures, clock);
    this.deletion = new Deletion(plane, loaded, writer, names, clock);
    this.listing = new Listing(plane, loaded);
    this.handoffs = new Handoffs(loaded, engineStreams, writer, failures);
  }

  // ---- the contract ---------------------------------------------------------------------------

  @Override
  public CompletableFuture<CreateOutcome> create(String name, CreateRequest request) {
    return bound(true, () -> createBlocking(name, request));
  }

  @Override
  public CompletableFuture<AppendVerdict> append(String name, AppendRequest request) {
    return failures.bound(appender.append(name, request), true).thenApply(this::acknowledge);
  }

  /** The outcome, unless this node lost its standing meanwhile (see {@link LivenessGate}). */
  private AppendVerdict acknowledge(AppendVerdict outcome) {
    if (!liveness.mayAcknowledge()) {
      throw new StreamUnavailableException(
          StreamUnavailableException.Reason.METADATA_UNAVAILABLE,
          true,
          "this node could not renew its liveness row in time, so it acknowledges nothing until it"
              + " can; another node may take its streams over",
          null);
    }
    return outcome;
  }

  @Override
  public CompletableFuture<ReadOutcome> read(String name, ReadWindow request) {
    if (Thread.currentThread().isVirtual()) {
      // A virtual thread may block: reading on it saves a second thread and a hand-off for every
      // read, which is most of what a live reader costs (each SSE delivery is one read).
      try {
        return CompletableFuture.completedFuture(readBlocking(name, request));
      } catch (RuntimeException e) {
        return failures.bound(CompletableFuture.failedFuture(e), false);
      }
    }
    return bound(false, () -> readBlocking(name, request));
  }

  @Override
  public CompletableFuture<Void> awaitBeyond(String name, long seq) {
    CompletableFuture<Void> signal = new CompletableFuture<>();
    Optional<LiveStream> stream = loaded.published(name);
    if (stream.isPresent()) {
      register(stream.get(), seq, signal);
    } else if (plane.state().kvValue(Registry.key(name)).isEmpty()) {
      signal.complete(null);
    } else {
      executor.execute(
          () -> {
            try {
              lookup(name)
                  .ifPresentOrElse(
                      found -> register(found, seq, signal), () -> signal.complete(null));
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
          Optional<LiveStream> found = lookup(name);
          if (found.isEmpty()) {
            return new HeadOutcome.NotFound();
          }
          LiveStream stream = found.get();
          stream.lock.lock();
          try {
            return stream.registration.softDeleted()
                ? new HeadOutcome.Gone()
                : new HeadOutcome.Found(stream.info());
          } finally {
            stream.lock.unlock();
          }
        });
  }

  @Override
  public CompletableFuture<DeleteOutcome> delete(String name) {
    return bound(true, () -> deleteBlocking(name));
  }

  @Override
  public CompletableFuture<TrimOutcome> trim(String name, long beforeSeq) {
    return bound(true, () -> trimBlocking(name, beforeSeq));
  }

  @Override
  public CompletableFuture<StreamPage> list(ListQuery request) {
    return bound(false, () -> listing.page(request, clock.millis()));
  }

  /**
   * The source's side of a transfer of engine stream {@code streamId}, which this process holds
   * open: stops its appends, waits for what it took, closes it at its epoch ({@link Handoffs}).
   * Blocks; call it on a virtual thread.
   *
   * @return the epoch it was closed at, for the transfer's completion
   */
  public long handOff(long streamId) {
    return handoffs.handOff(streamId);
  }

  /**
   * Opens {@code name} on this node ahead of its first request, as that request would ({@link
   * #lookup}): the stream just arrived here open elsewhere ({@link Arrivals}). Nothing happens when
   * it is loaded already; a load under way is waited for rather than repeated. Blocks (bounded by
   * the request timeout); call it on a virtual thread.
   *
   * @throws StreamUnavailableException when the stream does not route here (it moved on) or storage
   *     or the metadata log does not answer in time
   */
  public void openArrived(String name) {
    if (loaded.published(name).isEmpty()) {
      lookup(name);
    }
  }

  /**
   * Expires whatever is loaded and past its time; the node calls it every second. Looks only at the
   * streams whose queued deadline passed: one whose activity moved its deadline is queued again,
   * one that is due is ended through {@link #lookup} as any access would. A stream that fails to
   * end stays queued and is tried again on the next sweep.
   */
  public void expireDue() {
    for (LiveStream stream : loaded.takeDue(clock.millis())) {
      try {
        if (Expirations.expiredNow(stream, clock.millis())) {
          lookup(stream.name);
        }
      } catch (RuntimeException e) {
        LOG.warn("expiring {} failed; retrying on the next sweep: {}", stream.name, e.toString());
      } finally {
        loaded.track(stream);
      }
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
        plane
            .state()
            .kv()
            .subMap(Registry.KEY_PREFIX, Registry.KEY_PREFIX + Character.MAX_VALUE)
            .entrySet()) {
      String name = Registry.nameOf(entry.getKey());
      try {
        Registration registration = loaded.decode(name, entry.getValue());
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

  // ---- lookup ---------------------------------------------------------------------------------

  /**
   * The name's instance, live or soft-deleted, or empty when it does not exist. Loads it from the
   * registry on first use ({@link LoadedStreams#get}); ends it first if its time has come. Call it
   * holding no lock.
   */
  private Optional<LiveStream> lookup(String name) {
    while (true) {
      Optional<LiveStream> found = loaded.get(name);
      if (found.isEmpty() || !Expirations.expiredNow(found.get(), clock.millis())) {
        return found;
      }
      switch (deletion.end(found.get(), true)) {
        case Ending.Ended ended -> {
          failures.await(ended.done());
          return ended.retained() ? found : Optional.empty();
        }
        case Ending.NotDue notDue -> {
          return found;
        }
        case Ending.Gone gone -> {
          return found;
        }
        case Ending.NotFound notFound -> {
          return Optional.empty();
        }
        case Ending.Stale stale -> {
          // forgotten meanwhile: look it up afresh
        }
      }
    }
  }

  // ---- create, delete, trim -------------------------------------------------------------------

  private CreateOutcome createBlocking(String name, CreateRequest request) {
    Optional<CompletableFuture<Void>> removal = loaded.removal(name);
    if (removal.isPresent()) {
      failures.await(removal.get().exceptionally(ignored -> null)); // free once its delete applied
    }
    Optional<LiveStream> existing = loaded.unknown(name) ? Optional.empty() : lookup(name);
    if (existing.isPresent()) {
      return creator.repeatedCreate(existing.get(), request);
    }
    return request.fork().isPresent()
        ? forks.create(name, request, request.fork().get())
        : creator.createPlain(name, request);
  }

  private DeleteOutcome deleteBlocking(String name) {
    if (loaded.published(name).isEmpty()
        && Registry.unusableReason(plane.state(), name).isPresent()) {
      return failures.await(deletion.deleteUnusable(name));
    }
    while (true) {
      Optional<LiveStream> found = lookup(name);
      if (found.isEmpty()) {
        return new DeleteOutcome.NotFound();
      }
      switch (deletion.end(found.get(), false)) {
        case Ending.Ended ended -> {
          failures.await(ended.done());
          return new DeleteOutcome.Deleted(ended.retained());
        }
        case Ending.Gone gone -> {
          return new DeleteOutcome.Gone();
        }
        case Ending.NotFound notFound -> {
          return new DeleteOutcome.NotFound();
        }
        case Ending.NotDue notDue ->
            throw new IllegalStateException("an unconditional end of " + name + " was not due");
        case Ending.Stale stale -> {
          // forgotten meanwhile: look it up afresh
        }
      }
    }
  }

  private TrimOutcome trimBlocking(String name, long beforeSeq) {
    Optional<LiveStream> found = lookup(name);
    if (found.isEmpty()) {
      return new TrimOutcome.NotFound();
    }
    LiveStream stream = found.get();
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
      stream.touch(clock.millis());
      if (beforeSeq <= registration.startSeq()) {
        return new TrimOutcome.Trimmed(registration.startSeq());
      }
      startSeq = beforeSeq;
      persisted = writer.persist(stream, registration.withStartSeq(startSeq), stream.persisted);
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
  }

  // ---- read -----------------------------------------------------------------------------

  private ReadOutcome readBlocking(String name, ReadWindow request) {
    Optional<LiveStream> found = lookup(name);
    if (found.isEmpty()) {
      return new ReadOutcome.NotFound();
    }
    LiveStream stream = found.get();
    StreamDescription info;
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
      stream.touch(clock.millis());
      info = stream.info();
    } finally {
      stream.lock.unlock();
    }
    if (request.fromSeq() < info.startSeq()) {
      return new ReadOutcome.Trimmed(info.startSeq());
    }
    if (request.fromSeq() > info.nextSeq()) {
      return new ReadOutcome.BeyondTail(info.nextSeq());
    }
    List<StreamRecord> records = recordsFor(stream, registration, request, info.nextSeq());
    return new ReadOutcome.Batch(info, records, request.fromSeq() + records.size());
  }

  /** The records a read asks for, shared with the previous read when it asked the same. */
  private List<StreamRecord> recordsFor(
      LiveStream stream, Registration registration, ReadWindow request, long tail) {
    LiveStream.RecentRead recent = stream.recentRead;
    if (recent != null
        && recent.matches(
            registration.streamId(),
            request.fromSeq(),
            tail,
            request.maxRecords(),
            request.maxBytes())) {
      return recent.records();
    }
    List<StreamRecord> records =
        reader.read(
            registration, request.fromSeq(), tail, request.maxRecords(), request.maxBytes());
    if (LiveStream.RecentRead.worthKeeping(request.fromSeq(), tail, records)) {
      stream.recentRead =
          new LiveStream.RecentRead(
              registration.streamId(),
              request.fromSeq(),
              tail,
              request.maxRecords(),
              request.maxBytes(),
              records);
    }
    return records;
  }

  // ---- waiters --------------------------------------------------------------------------------

  private void register(LiveStream stream, long seq, CompletableFuture<Void> signal) {
    boolean now;
    stream.lock.lock();
    try {
      now =
          stream.removed
              || stream.registration.softDeleted()
              || stream.closedAndSettled()
              || stream.confirmedTail > seq
              || Expirations.expired(stream, clock.millis());
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

  /** {@code work} on the executor, failing typed and within the request timeout. */
  private <T> CompletableFuture<T> bound(boolean writes, Supplier<T> work) {
    return failures.bound(CompletableFuture.supplyAsync(work, executor), writes);
  }
}
