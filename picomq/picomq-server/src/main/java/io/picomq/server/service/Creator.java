package io.picomq.server.service;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.meta.apply.Outcome;
import io.picomq.meta.apply.RejectReason;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.NodeRecord;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.CreateOutcome;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.Expiry;
import io.picomq.stream.NewRecord;
import io.picomq.stream.StreamDescription;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Creates streams: allocates and opens an engine stream (or, in a cluster, places it on another
 * node without opening it), writes the initial records durably, then puts the entry if the name is
 * still free in the log. A racing create (on this node or another) loses in the log, destroys its
 * engine stream and answers as a repeated create.
 *
 * <p>A plain create takes no lock: concurrent creates allocate, open and register their streams in
 * parallel, so their commands share log rows (group commit), and the log settles two creates of one
 * name (put-if-absent). {@link Forks} uses the same steps for a fork.
 *
 * <p>Threading: blocking calls (bounded, {@link ServiceFailures}); any virtual thread, holding no
 * lock unless a method says so.
 */
final class Creator {
  private final MetadataPlane plane;
  private final StreamEngine engine;
  private final LoadedStreams loaded;
  private final Function<String, Optional<LiveStream>> lookup;
  private final ServiceFailures failures;
  private final InstantSource clock;
  private final ByteBufAllocator allocator;
  private final StreamIdReserve ids;

  /**
   * @param lookup a name's instance with expiry applied, loading it if needed (blocks)
   */
  Creator(
      MetadataPlane plane,
      StreamEngine engine,
      LoadedStreams loaded,
      Function<String, Optional<LiveStream>> lookup,
      ServiceFailures failures,
      InstantSource clock,
      ByteBufAllocator allocator) {
    this.plane = plane;
    this.engine = engine;
    this.loaded = loaded;
    this.lookup = lookup;
    this.failures = failures;
    this.clock = clock;
    this.allocator = allocator;
    this.ids = new StreamIdReserve(plane, failures);
  }

  /**
   * Creates a plain stream that does not exist (as far as this caller saw). With other nodes in the
   * cluster, an empty create goes where placement (in the log) puts it: if that is another node,
   * the entry is written here and the stream is not opened, so the stream's first request is
   * redirected there and opens it. A create with records opens the stream here, to write them.
   */
  CreateOutcome createPlain(String name, CreateRequest request) {
    long now = clock.millis();
    long streamId = ids.take();
    if (request.records().isEmpty() && otherNodesHoldStreams() && placedElsewhere(streamId)) {
      Registration registration = newRegistration(streamId, request, now);
      if (!registerOnly(name, registration)) {
        return lost(name, request);
      }
      return new CreateOutcome.Created(
          new StreamDescription(
              name,
              streamId,
              registration.contentType(),
              registration.expiry(),
              Expirations.expiresAt(registration.expiry(), now),
              0,
              0,
              registration.closed()));
    }
    CompletableFuture<Stream> opening = engine.openStream(streamId);
    Registration registration = newRegistration(streamId, request, now);
    Optional<CreateOutcome.Created> created;
    if (request.records().isEmpty() && !opening.isCompletedExceptionally()) {
      // The open and the entry are two log commands: proposed together they share a round trip
      // (usually a row). The log keeps this node's order, so the open applies first; if it fails
      // after all, the entry names an allocated stream that its first touch opens, as a placed one.
      CompletableFuture<Result> putting = putIfAbsent(name, registration);
      created = register(name, failures.await(opening), registration, 0, putting);
    } else {
      // The records must be durable before the name shows: a create that fails leaves no entry.
      Stream own = failures.await(opening);
      appendDurably(own, request.records(), now);
      created = register(name, own, registration, now, putIfAbsent(name, registration));
    }
    return created.isPresent() ? created.get() : lost(name, request);
  }

  private CompletableFuture<Result> putIfAbsent(String name, Registration registration) {
    return plane.propose(
        new Command.KvPutIfAbsent(Registry.key(name), KvValue.of(registration.encode())));
  }

  private static Registration newRegistration(long streamId, CreateRequest request, long now) {
    return new Registration(
        streamId,
        request.contentType().orElse(Admission.DEFAULT_CONTENT_TYPE),
        request.expiry().orElse(Expiry.NEVER),
        now,
        request.closed(),
        false,
        0,
        0,
        Optional.empty(),
        List.of(new Segment(streamId, 0, Segment.OPEN_END, 0)),
        Optional.empty(),
        Map.of(),
        request.records().size());
  }

  /** Whether a node other than this one can take streams: only then is there a choice. */
  private boolean otherNodesHoldStreams() {
    int self = plane.identity().nodeId();
    for (NodeRecord node : plane.state().nodes().values()) {
      if (node.nodeId() != self && node.slots() > 0 && !node.isTakenOver()) {
        return true;
      }
    }
    return false;
  }

  /** Places the stream in the log; true when placement chose another node. */
  private boolean placedElsewhere(long streamId) {
    Result result = failures.await(plane.propose(new Command.PlaceStream(streamId)));
    return switch (result) {
      case Result.Rejected rejected -> false; // no node has a slot: it opens here
      case Result.Ok ok -> placedNode(ok.outcome()) != plane.identity().nodeId();
      case Result.Redundant redundant ->
          placedNode(redundant.outcome()) != plane.identity().nodeId();
    };
  }

  private static int placedNode(Outcome outcome) {
    return ((Outcome.StreamPlaced) outcome).nodeId();
  }

  /**
   * Puts the entry of a stream placed on another node if the name is still free; false when the
   * name was taken (the unopened stream is deleted then).
   */
  private boolean registerOnly(String name, Registration registration) {
    Result result = failures.await(putIfAbsent(name, registration));
    if (result instanceof Result.Rejected rejected) {
      failures.await(plane.propose(new Command.DeleteStream(registration.streamId())));
      if (rejected.reason() != RejectReason.KEY_EXISTS) {
        throw new IllegalStateException("registering " + name + " failed: " + rejected.message());
      }
      return false;
    }
    return true;
  }

  /** A create of a name that exists: the same create again, or a conflict. */
  CreateOutcome repeatedCreate(LiveStream existing, CreateRequest request) {
    existing.lock.lock();
    try {
      if (existing.registration.softDeleted()) {
        return new CreateOutcome.NameRetained();
      }
      return Admission.configMismatch(existing.registration, request)
          .<CreateOutcome>map(CreateOutcome.Conflict::new)
          .orElseGet(() -> new CreateOutcome.Exists(existing.info()));
    } finally {
      existing.lock.unlock();
    }
  }

  /**
   * The answer to a create whose registration lost to another create of the name: as a repeated
   * create of the winner. Looks the name up, so no name lock may be held.
   */
  CreateOutcome lost(String name, CreateRequest request) {
    while (true) {
      Optional<LiveStream> winner = lookup.apply(name);
      if (winner.isPresent()) {
        return repeatedCreate(winner.get(), request);
      }
      // The lookup may have joined a racer's load of the name that read the log before the
      // winner's entry applied. Only an entry gone from the log means the winner was removed.
      if (plane.state().kvValue(Registry.key(name)).isEmpty()) {
        return new CreateOutcome.Conflict("the stream was created and removed concurrently");
      }
      loaded.removal(name).ifPresent(removed -> failures.await(removed.exceptionally(e -> null)));
    }
  }

  /**
   * Puts the entry if the name is still free in the log and publishes the stream; empty when the
   * name was taken (its engine stream is destroyed then; answer with {@link #lost}).
   */
  Optional<CreateOutcome.Created> register(
      String name, Stream own, Registration registration, long lastTimestamp) {
    return register(name, own, registration, lastTimestamp, putIfAbsent(name, registration));
  }

  /** {@link #register} with the entry's put already proposed. */
  private Optional<CreateOutcome.Created> register(
      String name,
      Stream own,
      Registration registration,
      long lastTimestamp,
      CompletableFuture<Result> putting) {
    Result result = failures.await(putting);
    if (result instanceof Result.Rejected rejected) {
      own.destroy();
      if (rejected.reason() != RejectReason.KEY_EXISTS) {
        throw new IllegalStateException("registering " + name + " failed: " + rejected.message());
      }
      return Optional.empty();
    }
    long tail = registration.ownSeqStart() + own.confirmOffset();
    LiveStream created =
        new LiveStream(name, own, registration, tail, lastTimestamp, registration.activityMillis());
    created.stampedThroughProposed = registration.stampedThrough();
    // A racing touch may have loaded this very entry already: then that instance is the one.
    LiveStream stream = loaded.publishCreated(created);
    stream.lock.lock();
    try {
      return Optional.of(new CreateOutcome.Created(stream.info()));
    } finally {
      stream.lock.unlock();
    }
  }

  /** A new engine stream, allocated in the log (ahead, see {@link StreamIdReserve}) and opened. */
  Stream openNew() {
    return failures.await(engine.openStream(ids.take()));
  }

  /** Appends {@code records} as one batch and waits until they are durable. */
  void appendDurably(Stream stream, List<NewRecord> records, long timestampMillis) {
    ByteBuf payload = RecordBatchPayload.encode(records, timestampMillis, allocator);
    try {
      AppendOutcome outcome = failures.await(stream.append(records.size(), payload));
      if (!(outcome instanceof AppendOutcome.Appended)) {
        throw failures.refused(outcome);
      }
    } finally {
      payload.release();
    }
  }
}
