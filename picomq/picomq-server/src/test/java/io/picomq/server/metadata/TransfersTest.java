package io.picomq.server.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.StreamEntry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * This node's part of the transfers in the log, one round at a time, against a real metadata log
 * (SQLite) and liveness table. Node 1 is this process; node 2 is registered on its behalf as a
 * process that started after the last liveness read (presumed alive, nothing runs it), node 3 as
 * one without a row (presumed dead). The service's side of a handoff is played by a {@link
 * Transfers.Source} that closes the stream in the log, as the engine does.
 */
class TransfersTest {
  private static final long EPOCH = 10;

  @TempDir Path dir;
  private MetadataPlane plane;
  private NodeLiveness liveness;
  private final List<Long> handedOff = new CopyOnWriteArrayList<>();
  private long later;

  @BeforeEach
  void start() throws Exception {
    plane =
        MetadataPlane.open(
            "sqlite:" + dir.resolve("meta.db"),
            new NodeIdentity(1, EPOCH, "http://127.0.0.1:1", 1),
            Clock.systemUTC());
    plane.start();
    liveness = plane.liveness(Duration.ofSeconds(10));
    liveness.start();
    later = Clock.systemUTC().millis() + 3_600_000;
    plane.proposeAccepted(new Command.RegisterNode(2, later, "http://127.0.0.1:2", 1)).join();
    plane.proposeAccepted(new Command.RegisterNode(3, 1, "http://127.0.0.1:3", 1)).join();
  }

  @AfterEach
  void stop() {
    liveness.close();
    plane.close();
  }

  private Transfers transfers() {
    return new Transfers(
        plane,
        liveness,
        streamId -> {
          handedOff.add(streamId);
          long epoch = stream(streamId).epoch();
          plane.proposeAccepted(new Command.CloseStream(streamId, epoch, 1, EPOCH)).join();
          return epoch;
        });
  }

  private long openStream(int nodeId, long nodeEpoch) {
    long id =
        ((Outcome.StreamsCreated) plane.proposeAccepted(new Command.CreateStream()).join())
            .firstStreamId();
    plane.proposeAccepted(new Command.OpenStream(id, nodeId, nodeEpoch)).join();
    return id;
  }

  private StreamEntry stream(long id) {
    return plane.state().stream(id).orElseThrow();
  }

  @Test
  void theSourceHandsTheStreamOffAndCompletesTheTransfer() {
    long id = openStream(1, EPOCH);
    plane.proposeAccepted(new Command.TransferStream(id, 2)).join();

    transfers().runRound();

    Awaitility.await("the transfer completed")
        .atMost(Duration.ofSeconds(10))
        .until(() -> plane.state().pendingTransfers().isEmpty());
    assertThat(handedOff).containsExactly(id);
    assertThat(stream(id).isOpen()).isFalse();
    assertThat(stream(id).nodeId()).isEqualTo(2);
  }

  @Test
  void aStreamClosedAtThePendingEpochIsCompletedByTheTargetWithoutAHandoff() {
    // Node 2 held it and closed it (or its restart's recovery did) but never completed.
    long id = openStream(2, later);
    plane.proposeAccepted(new Command.TransferStream(id, 1)).join();
    long epoch = stream(id).epoch();
    plane.proposeAccepted(new Command.CloseStream(id, epoch, 2, later)).join();

    transfers().runRound();

    assertThat(plane.state().pendingTransfers()).isEmpty();
    assertThat(stream(id).nodeId()).isEqualTo(1);
    assertThat(handedOff).isEmpty();
  }

  @Test
  void aTransferToANodePresumedDeadFallsBackAndTheStreamStaysOpenHere() {
    long id = openStream(1, EPOCH);
    plane.proposeAccepted(new Command.TransferStream(id, 3)).join();

    transfers().runRound();

    assertThat(plane.state().pendingTransfers()).isEmpty();
    assertThat(stream(id).isOpen()).isTrue();
    assertThat(stream(id).nodeId()).isEqualTo(1);
    assertThat(handedOff).isEmpty();
  }

  @Test
  void aTransferBetweenTwoOtherNodesIsLeftToThem() {
    long id = openStream(2, later);
    plane.proposeAccepted(new Command.RegisterNode(4, later, "http://127.0.0.1:4", 1)).join();
    plane.proposeAccepted(new Command.TransferStream(id, 4)).join();

    transfers().runRound();

    assertThat(plane.state().pendingTransfers()).hasSize(1);
    assertThat(handedOff).isEmpty();
  }
}
