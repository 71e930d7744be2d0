package io.picomq.server.metadata;

import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work only the lease holder does, once per {@code interval}: reclaim prepared object ids whose
 * expiry passed, and collect destroyed objects in two phases (delete their bytes from storage
 * first, then propose their removal from the destruction queue, so a crash in between only repeats
 * a delete). Correctness never depends on the lease: every step is idempotent. A round that fails
 * (a delete or a proposal) changes nothing it did not finish and is repeated on the next tick.
 * Expired prepared ids join the destruction queue, so an upload that never committed is collected
 * the same way. A node passes its engine's {@link
 * io.picomq.s3stream.api.StreamEngine#deleteObjects} as the deleter.
 *
 * <p>Threading: one virtual thread runs the rounds ({@link Rounds}); {@link #close()} stops it.
 */
public final class Maintenance implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Maintenance.class);
  private static final int MAX_CLEAN_PER_ROUND = 1000;

  private final MetadataPlane plane;
  private final Optional<ObjectBytesDeleter> deleter;
  private final Clock clock;
  private final Rounds rounds;

  public Maintenance(
      MetadataPlane plane, Optional<ObjectBytesDeleter> deleter, Clock clock, Duration interval) {
    this.plane = plane;
    this.deleter = deleter;
    this.clock = clock;
    this.rounds = new Rounds("picomq-maintenance", interval, this::roundIfLeader);
  }

  public void start() {
    if (deleter.isEmpty()) {
      LOG.info("no object deleter: destroyed objects stay queued until one is configured");
    }
    rounds.start();
  }

  private void roundIfLeader() {
    if (plane.holdsLease() && plane.healthy()) {
      runRound();
    }
  }

  /** One round; blocks on the proposals it makes. */
  void runRound() {
    MetadataState state = plane.state();
    long now = clock.millis();
    boolean anyExpired = state.preparedObjects().values().stream().anyMatch(at -> at <= now);
    if (anyExpired) {
      plane.proposeAccepted(new Command.ExpirePreparedObjects(now)).join();
    }
    if (deleter.isPresent()) {
      List<Long> destroyed = new ArrayList<>();
      for (long id : plane.state().destructionQueue()) {
        destroyed.add(id);
        if (destroyed.size() == MAX_CLEAN_PER_ROUND) {
          break;
        }
      }
      if (!destroyed.isEmpty()) {
        deleter.get().deleteBytes(destroyed).join();
        plane.proposeAccepted(new Command.CleanDestroyedObjects(destroyed)).join();
      }
    }
  }

  @Override
  public void close() {
    rounds.close();
  }
}
