package io.picomq.server.service;

import io.picomq.meta.state.KvValue;
import io.picomq.s3stream.api.Stream;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.Route;
import io.picomq.stream.StreamRouter;
import io.picomq.stream.StreamUnavailableException;
import io.picomq.stream.StreamUnavailableException.Reason;
import io.picomq.stream.StreamUnusableException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The names this node has loaded: a {@link LiveStream} per name, loaded from its registry entry on
 * first use, and what keeps loading correct against creates, removals and forgotten streams.
 *
 * <h2>Design</h2>
 *
 * Loading is per name. The first caller to touch an unloaded name takes the name's loading slot (a
 * future in {@link #loading}) and loads it on its own thread: reads the entry, opens the engine
 * stream (a metadata proposal), replays the stamps past the entry's {@code stampedThrough} and
 * reads the last record's timestamp, possibly from object storage (neither when the entry was
 * written at the durable tail, as a transfer's source writes it). Callers touching the same name
 * meanwhile wait for that future; callers touching other names load in parallel. After a restart,
 * the first touches of many streams therefore share log commits and storage reads instead of
 * queueing behind one lock (figures in the operating docs, {@code scripts/bench-restart.sh}).
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>A name gets a new instance only through its loading slot, by a load or by a create ({@link
 *       #publishCreated}), so two instances of one name are never published at once and a load
 *       never overlaps a create's publication.
 *   <li>A name is loaded only when no instance is published; an instance leaves {@link #live} only
 *       by a removal (after the name went into {@link #removing}) or by being forgotten (after its
 *       settle future went into {@link #settling}). So a load that starts after either sees it: it
 *       finds nothing while the removal is under way, and waits for the engine stream to settle
 *       before reading the durable tail.
 *   <li>A removal or a forget acts on a published instance under its lock; ending an instance that
 *       was forgotten meanwhile is refused ({@link Deletion}), so the caller acts on the current
 *       one.
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * Any thread. The maps are concurrent; no lock is held while loading. {@link #get} blocks (bounded
 * by the request timeout, {@link ServiceFailures}): call it on a virtual thread.
 */
final class LoadedStreams {
  private static final Logger LOG = LoggerFactory.getLogger(LoadedStreams.class);
  private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(2);

  private final MetadataPlane plane;
  private final EngineStreams engineStreams;
  private final IncomingTransfers incoming;
  private final StreamRouter router;
  private final SegmentReader reader;
  private final EntryWriter writer;
  private final ServiceFailures failures;
  private final InstantSource clock;

  /** Published instances, by name. */
  private final ConcurrentHashMap<String, LiveStream> live = new ConcurrentHashMap<>();

  /** Each name's loading slot while a load or a create's publication runs. */
  private final ConcurrentHashMap<String, CompletableFuture<Optional<LiveStream>>> loading =
      new ConcurrentHashMap<>();

  /** Names deleted for good whose registry entry is not yet removed in the log. */
  private final ConcurrentHashMap<String, CompletableFuture<Void>> removing =
      new ConcurrentHashMap<>();

  /**
   * Names whose instance was forgotten after a failed append, until its engine stream settled: a
   * load waits for it, so the tail it loads is the durable one.
   */
  private final ConcurrentHashMap<String, CompletableFuture<Void>> settling =
      new ConcurrentHashMap<>();

  /** Names whose unusable entry was logged already (once per process, not once per listing). */
  private final Set<String> reportedUnusable = ConcurrentHashMap.newKeySet();

  /** Loaded streams that can expire, by deadline: what the expiry sweep looks at. */
  private final ExpiryQueue<LiveStream> expiring = new ExpiryQueue<>();

  LoadedStreams(
      MetadataPlane plane,
      EngineStreams engineStreams,
      SegmentReader reader,
      EntryWriter writer,
      ServiceFailures failures,
      InstantSource clock,
      StreamRouter router) {
    this.plane = plane;
    this.engineStreams = engineStreams;
    this.incoming = new IncomingTransfers(plane);
    this.router = router;
    this.reader = reader;
    this.writer = writer;
    this.failures = failures;
    this.clock = clock;
  }

  /** The name's published instance, if it has one; never loads. */
  Optional<LiveStream> published(String name) {
    return Optional.ofNullable(live.get(name));
  }

  /**
   * Whether this node knows nothing of the name: no instance published or loading, no entry in the
   * view at hand. A create may then propose at once, without the catch-up a load of a missing name
   * makes (a database round trip): the log's put-if-absent decides, and a create that loses to one
   * made elsewhere answers as a repeated create of the winner.
   */
  boolean unknown(String name) {
    return !live.containsKey(name)
        && !loading.containsKey(name)
        && !settling.containsKey(name)
        && plane.state().kvValue(Registry.key(name)).isEmpty();
  }

  /**
   * The name's instance, loaded from the registry on first use; empty when the name has no entry or
   * is being removed. Blocks while this or another caller loads the name.
   *
   * @throws StreamUnusableException when the entry cannot be used
   */
  Optional<LiveStream> get(String name) {
    LiveStream stream = live.get(name);
    if (stream != null) {
      return Optional.of(stream);
    }
    CompletableFuture<Void> settled = settling.get(name);
    if (settled != null) {
      failures.await(settled);
    }
    CompletableFuture<Optional<LiveStream>> mine = new CompletableFuture<>();
    CompletableFuture<Optional<LiveStream>> theirs = loading.putIfAbsent(name, mine);
    if (theirs != null) {
      return failures.await(theirs);
    }
    try {
      stream = live.get(name);
      Optional<LiveStream> loaded = stream != null ? Optional.of(stream) : load(name);
      mine.complete(loaded);
      return loaded;
    } catch (RuntimeException e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      loading.remove(name, mine);
    }
  }

  /**
   * The name's instance as {@link #get} finds it, but never one that was forgotten (an append to it
   * failed): what acts on a name's entry under its name lock ({@link Forks}, {@link Deletion}).
   */
  Optional<LiveStream> current(String name) {
    while (true) {
      Optional<LiveStream> found = get(name);
      if (found.isEmpty() || !forgotten(found.get())) {
        return found;
      }
      Thread.onSpinWait(); // being unpublished right now; the next get waits for it to settle
    }
  }

  private static boolean forgotten(LiveStream stream) {
    stream.lock.lock();
    try {
      return stream.forgotten;
    } finally {
      stream.lock.unlock();
    }
  }

  /**
   * Publishes a stream this node just registered in the log, unless a load of its entry published
   * it first: returns the instance that is published.
   */
  LiveStream publishCreated(LiveStream created) {
    String name = created.name;
    engineStreams.adopt(created.own);
    while (true) {
      CompletableFuture<Optional<LiveStream>> mine = new CompletableFuture<>();
      CompletableFuture<Optional<LiveStream>> theirs = loading.putIfAbsent(name, mine);
      if (theirs != null) {
        failures.await(theirs.exceptionally(ignored -> Optional.empty()));
        continue;
      }
      try {
        LiveStream raced = live.putIfAbsent(name, created);
        if (raced == null) {
          track(created);
        }
        LiveStream published = raced != null ? raced : created;
        mine.complete(Optional.of(published));
        return published;
      } finally {
        loading.remove(name, mine);
      }
    }
  }

  /** The removal of {@code name} under way, if one is. */
  Optional<CompletableFuture<Void>> removal(String name) {
    return Optional.ofNullable(removing.get(name));
  }

  /**
   * Under the stream's lock, as its removal starts: no later load finds the name until {@code
   * removed} (the entry's removal from the log) completes.
   */
  void removing(LiveStream stream, CompletableFuture<Void> removed) {
    removing.put(stream.name, removed);
    removed.whenComplete((ignored, failure) -> removing.remove(stream.name, removed));
    live.remove(stream.name, stream);
    engineStreams.drop(stream.own);
  }

  /**
   * Unpublishes a forgotten instance: the next touch loads the name afresh once {@code settled}
   * (its engine stream settled) completes.
   */
  void forgotten(LiveStream stream, CompletableFuture<Void> settled) {
    settling.put(stream.name, settled);
    live.remove(stream.name, stream);
    engineStreams.drop(stream.own);
    settled.whenComplete((ignored, failure) -> settling.remove(stream.name, settled));
  }

  /** The published instance whose engine stream is {@code streamId}. A scan: for handoffs. */
  Optional<LiveStream> holding(long streamId) {
    for (LiveStream stream : live.values()) {
      if (stream.own.streamId() == streamId) {
        return Optional.of(stream);
      }
    }
    return Optional.empty();
  }

  /**
   * Unpublishes an instance whose engine stream was closed for a handoff: the stream is another
   * node's now, and a request that still reaches this node loads it afresh (and is refused while
   * the transfer completes).
   */
  void handedOff(LiveStream stream) {
    live.remove(stream.name, stream);
    engineStreams.drop(stream.own);
  }

  /**
   * The entry stored for {@code name}, decoded.
   *
   * @throws StreamUnusableException when it cannot be used, logged once per name
   */
  Registration decode(String name, KvValue value) {
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

  /** The unusable entry of {@code name} was deleted: a new one may be reported again. */
  void unusableDeleted(String name) {
    reportedUnusable.remove(name);
  }

  /**
   * Queues a published stream for the expiry sweep at its current deadline, unless it cannot expire
   * or is no longer the published one. A stream whose deadline passed is queued at it and ended by
   * the next sweep.
   */
  void track(LiveStream stream) {
    Optional<Long> deadline = Expirations.sweepDeadlineMillis(stream);
    if (deadline.isPresent() && live.get(stream.name) == stream) {
      expiring.add(stream, deadline.get());
    }
  }

  /** Removes and returns the queued streams whose deadline passed by {@code nowMillis}. */
  List<LiveStream> takeDue(long nowMillis) {
    return expiring.takeDue(nowMillis);
  }

  /**
   * A request routed here before the stream moved (a transfer completed, or placement put it
   * elsewhere) must not open it here again: the log would allow it (a closed stream opens anywhere)
   * and the stream would be back on the node it just left. The retry goes where it routes now.
   */
  private void refuseUnlessRoutedHere(String name) {
    switch (router.route(name)) {
      case Route.Local local -> {}
      case Route.Redirect redirect ->
          throw new StreamUnavailableException(
              Reason.NOT_OWNER,
              false,
              name + " is served by node " + redirect.nodeId() + "; retry there",
              null);
      case Route.Recovering recovering ->
          throw new StreamUnavailableException(
              Reason.RECOVERING,
              false,
              name + " waits for node " + recovering.nodeId() + "'s WAL to be recovered",
              null);
    }
  }

  /**
   * The name's entry once this node applied everything in the log: a client that created the name
   * through another node a moment ago, then was sent here, must not be told it does not exist. Best
   * effort: if the log cannot answer in time, the view at hand decides.
   */
  private Optional<KvValue> afterCatchingUp(String name) {
    try {
      return plane.catchUp(CATCH_UP_TIMEOUT).join().state().kvValue(Registry.key(name));
    } catch (CompletionException | CancellationException e) {
      return plane.state().kvValue(Registry.key(name));
    }
  }

  /** In the name's loading slot: the entry with its engine stream open, published; or empty. */
  private Optional<LiveStream> load(String name) {
    if (removing.containsKey(name)) {
      return Optional.empty(); // deleted; its entry is on its way out of the registry
    }
    Optional<KvValue> value = plane.state().kvValue(Registry.key(name));
    if (value.isEmpty()) {
      value = afterCatchingUp(name);
    }
    if (value.isEmpty()) {
      return Optional.empty();
    }
    long started = System.nanoTime();
    Registration stored = decode(name, value.get());
    incoming.awaitArrival(name, stored.streamId());
    // A stream that moved here while this request was parked has a newer entry: the source wrote
    // it at the tail it handed off (so loading reads nothing), after the read above.
    Optional<KvValue> arrived = plane.state().kvValue(Registry.key(name));
    while (!arrived.equals(value)) {
      if (arrived.isEmpty()) {
        return Optional.empty(); // deleted meanwhile
      }
      value = arrived;
      stored = decode(name, value.get());
      incoming.awaitArrival(name, stored.streamId());
      arrived = plane.state().kvValue(Registry.key(name));
    }
    refuseUnlessRoutedHere(name);
    long routed = System.nanoTime();
    Stream own = engineStreams.open(stored.streamId());
    long opened = System.nanoTime();
    Segment segment = stored.own();
    long tail = segment.seqStart() + own.confirmOffset() - segment.offsetStart();
    Registration registration = writer.replayStamps(stored, own, tail);
    long lastTimestamp;
    Optional<Long> written = stored.tailTimestampAt(tail);
    if (tail == 0) {
      lastTimestamp = 0;
    } else if (written.isPresent()) {
      // The entry was written at this very tail (by the source of a transfer, at the least): no
      // read of the last record, which may be in an object no node has read yet.
      lastTimestamp = written.get();
    } else if (tail - 1 < registration.startSeq()) {
      // Trimmed to its tail: the last record may be gone from the engine. The activity written
      // with the trim is at least every timestamp assigned before it.
      lastTimestamp = registration.activityMillis();
    } else {
      lastTimestamp = reader.record(registration, tail - 1).timestampMillis();
    }
    long activity = Math.max(registration.activityMillis(), clock.millis());
    LiveStream stream = new LiveStream(name, own, registration, tail, lastTimestamp, activity);
    stream.stampedThroughProposed = stored.stampedThrough();
    if (!registration.equals(stored)) {
      // Write the rebuilt state through so the next load need not replay it (not waited for:
      // until it applies, the stamps in the log still say the same). Chained before the instance
      // is published, so no append can come between it and the state it writes.
      stream.lock.lock();
      try {
        writer.persist(stream, registration, stream.persisted);
      } finally {
        stream.lock.unlock();
      }
    }
    live.put(name, stream); // the slot is ours: nothing else publishes this name meanwhile
    track(stream);
    // Where a first request's time goes, the target's side of a transfer in particular.
    LOG.debug(
        "loaded {}: {} ms waiting for a transfer here, {} ms opening, {} ms reading the tail",
        name,
        (routed - started) / 1_000_000,
        (opened - routed) / 1_000_000,
        (System.nanoTime() - opened) / 1_000_000);
    return Optional.of(stream);
  }
}
