package io.picomq.server.service;

import io.picomq.meta.command.Command;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.service.Registration.ForkOrigin;
import io.picomq.stream.DeleteOutcome;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends streams, by delete or expiry: soft when forks read from the stream (it keeps its name and
 * records, answering "gone"), for good otherwise: the entry is removed from the registry, the
 * engine stream destroyed, and the stream's hold on its fork source released, cascading up a chain
 * of soft-deleted sources whose last fork went.
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>The choice between soft and for good is made under the stream's name lock ({@link
 *       NameLocks}), which a fork's creation holds until its source counts it ({@link Forks}).
 *   <li>Only a published, not forgotten instance is ended ({@link Ending.Stale} otherwise: look the
 *       name up again), so the decision is made on the entry as the log will have it.
 *   <li>A removal marks the instance removed and puts the name in {@link LoadedStreams}' removals
 *       before unpublishing it, so no load finds the name until the entry is out of the log.
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * Blocking calls on a virtual thread, holding no lock on entry. No I/O runs under a name lock or a
 * stream lock here: entry writes and the removal are proposed and waited for after both are
 * released, and the release of a fork source (which may load the source) runs after the fork's name
 * lock is released, so a thread never holds two name locks.
 */
final class Deletion {
  private static final Logger LOG = LoggerFactory.getLogger(Deletion.class);

  private final MetadataPlane plane;
  private final LoadedStreams loaded;
  private final EntryWriter writer;
  private final NameLocks names;
  private final InstantSource clock;

  Deletion(
      MetadataPlane plane,
      LoadedStreams loaded,
      EntryWriter writer,
      NameLocks names,
      InstantSource clock) {
    this.plane = plane;
    this.loaded = loaded;
    this.writer = writer;
    this.names = names;
    this.clock = clock;
  }

  /** What ending a stream came to. */
  sealed interface Ending {
    /** Ended: {@code done} completes once the registry says so. */
    record Ended(CompletableFuture<Void> done, boolean retained) implements Ending {}

    /** Removed already. */
    record NotFound() implements Ending {}

    /** Soft-deleted already. */
    record Gone() implements Ending {}

    /** Not ended: it was asked only if expired, and it is not. */
    record NotDue() implements Ending {}

    /** The instance was forgotten (an append failed): look the name up again and retry. */
    record Stale() implements Ending {}
  }

  /**
   * Ends {@code stream} (a published instance) now, or with {@code onlyIfExpired} only if its
   * deadline passed. Takes its name lock; returns once the decision is made, with the registry's
   * confirmation still to come.
   */
  Ending end(LiveStream stream, boolean onlyIfExpired) {
    List<CompletableFuture<Void>> due;
    CompletableFuture<Void> done;
    boolean retained;
    Optional<ForkOrigin> released = Optional.empty();
    ReentrantLock guard = names.of(stream.name);
    guard.lock();
    try {
      stream.lock.lock();
      try {
        if (stream.forgotten) {
          return new Ending.Stale();
        }
        if (stream.removed) {
          return new Ending.NotFound();
        }
        if (stream.registration.softDeleted()) {
          return new Ending.Gone();
        }
        if (onlyIfExpired && !Expirations.expired(stream, clock.millis())) {
          return new Ending.NotDue();
        }
        retained = stream.registration.forkRefs() > 0;
        if (retained) {
          done = writer.persist(stream, stream.registration.withSoftDeleted(), stream.persisted);
        } else {
          done = remove(stream);
          released = stream.registration.fork();
        }
        due = stream.dueWaiters();
      } finally {
        stream.lock.unlock();
      }
    } finally {
      guard.unlock();
    }
    due.forEach(signal -> signal.complete(null));
    if (released.isPresent()) {
      done = CompletableFuture.allOf(done, release(released.get().source()));
    }
    return new Ending.Ended(done, retained);
  }

  /**
   * Deletes a name whose entry is unusable: removes the entry. Its engine stream, if it has one,
   * cannot be told from the damaged bytes, so it stays (logged, for the operator). Takes no lock:
   * such a name is never loaded, and a create of it waits until the entry is gone (put-if-absent).
   */
  CompletableFuture<DeleteOutcome> deleteUnusable(String name) {
    return plane
        .proposeAccepted(new Command.KvDelete(Registry.key(name)))
        .thenApply(
            ignored -> {
              loaded.unusableDeleted(name);
              LOG.warn(
                  "deleted the unusable entry of {}; any engine stream it had is left in storage",
                  name);
              return new DeleteOutcome.Deleted(false);
            });
  }

  /**
   * Under the name lock and the stream's lock: removes the entry for good once every earlier write
   * of it applied, then destroys the engine stream. Completes once destroyed (or failed to be,
   * logged: the engine's garbage collection finds it).
   */
  private CompletableFuture<Void> remove(LiveStream stream) {
    stream.removed = true;
    String key = Registry.key(stream.name);
    CompletableFuture<Void> removed =
        stream
            .persisted
            .exceptionally(ignored -> null)
            .thenCompose(ignored -> plane.proposeAccepted(new Command.KvDelete(key)))
            .thenApply(ignored -> (Void) null);
    stream.persisted = removed;
    loaded.removing(stream, removed);
    return removed
        .thenCompose(ignored -> stream.own.destroy())
        .exceptionally(
            failure -> {
              LOG.warn("destroying the engine stream of {} failed", stream.name, failure);
              return null;
            });
  }

  /**
   * A fork of {@code sourceName} was removed: the source counts one fork less, and is removed too
   * if it was soft-deleted and that was its last (cascading to its own source). Holds no lock on
   * entry; may load the source.
   */
  private CompletableFuture<Void> release(String sourceName) {
    CompletableFuture<Void> released;
    Optional<ForkOrigin> next = Optional.empty();
    ReentrantLock guard = names.of(sourceName);
    guard.lock();
    try {
      Optional<LiveStream> found = loaded.current(sourceName);
      if (found.isEmpty()) {
        return CompletableFuture.completedFuture(null);
      }
      LiveStream source = found.get();
      source.lock.lock();
      try {
        Registration entry = source.registration;
        int refs = Math.max(0, entry.forkRefs() - 1);
        if (refs == 0 && entry.softDeleted() && !source.removed) {
          source.registration = entry.withForkRefs(0);
          released = remove(source);
          next = entry.fork();
        } else {
          released = writer.persist(source, entry.withForkRefs(refs), source.persisted);
        }
      } finally {
        source.lock.unlock();
      }
    } finally {
      guard.unlock();
    }
    if (next.isPresent()) {
      released = CompletableFuture.allOf(released, release(next.get().source()));
    }
    return released;
  }
}
