package io.picomq.server.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.StreamEntry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
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
  private HandoffCompletions completions;
  private long later;

  @BeforeEach
  void start() throws Exception {
    plane =
        MetadataPlane.open(
            "sqlite:" + dir.resolve("meta.db"),
            new NodeIdentity(1, EPOCH, "http://127.0.0.1:1", 1),
            Clock.systemUTC());
    plane.start();
    completions = new HandoffCompletions(plane);
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
    return transfers(
        streamId -> {
          handedOff.add(streamId);
          long epoch = stream(streamId).epoch();
          plane.proposeAccepted(new Command.CloseStream(streamId, epoch, 1, EPOCH)).join();
          return epoch;
        });
  }

  private Transfers transfers(Transfers.Source source) {
    return new Transfers(plane, liveness, source, completions);
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

    transfers().runRound(plane.state());

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

    transfers().runRound(plane.state());

    assertThat(plane.state().pendingTransfers()).isEmpty();
    assertThat(stream(id).nodeId()).isEqualTo(1);
    assertThat(handedOff).isEmpty();
  }

  @Test
  void aTransferToANodePresumedDeadFallsBackAndTheStreamStaysOpenHere() {
    long id = openStream(1, EPOCH);
    plane.proposeAccepted(new Command.TransferStream(id, 3)).join();

    transfers().runRound(plane.state());

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

    transfers().runRound(plane.state());

    assertThat(plane.state().pendingTransfers()).hasSize(1);
    assertThat(handedOff).isEmpty();
  }

  @Test
  void aRoundOnAViewFromBeforeTheCompletionDoesNotHandTheStreamOffAgain() {
    long id = openStream(1, EPOCH);
    plane.proposeAccepted(new Command.TransferStream(id, 2)).join();
    MetadataState beforeCompletion = plane.state();
    Transfers transfers = transfers();

    transfers.runRound(beforeCompletion);
    Awaitility.await("the transfer completed")
        .atMost(Duration.ofSeconds(10))
        .until(() -> plane.state().pendingTransfers().isEmpty());
    // A round that read the view just before the completion applied: the stream still open here.
    transfers.runRound(beforeCompletion);

    assertThat(handedOff).containsExactly(id);
    assertThat(stream(id).nodeId()).isEqualTo(2);
  }

  @Test
  void aLaterTransferOfTheSameStreamIsHandedOffAsUsual() {
    long id = openStream(1, EPOCH);
    plane.proposeAccepted(new Command.TransferStream(id, 2)).join();
    MetadataState firstTransfer = plane.state();
    Transfers transfers = transfers();
    transfers.runRound(firstTransfer);
    Awaitility.await("the first transfer completed")
        .atMost(Duration.ofSeconds(10))
        .until(() -> plane.state().pendingTransfers().isEmpty());
    transfers.runRound(firstTransfer);

    // Back here (a request opened it here again), and asked to move once more, with no round in
    // between that saw no transfer pending.
    plane.proposeAccepted(new Command.OpenStream(id, 1, EPOCH)).join();
    plane.proposeAccepted(new Command.TransferStream(id, 2)).join();
    transfers.runRound(plane.state());

    Awaitility.await("the second transfer completed")
        .atMost(Duration.ofSeconds(10))
        .until(() -> plane.state().pendingTransfers().isEmpty());
    assertThat(handedOff).containsExactly(id, id);
    assertThat(stream(id).nodeId()).isEqualTo(2);
  }

  @Test
  void theCompletionFollowsTheEnginesCloseIntoTheLogWithoutWaitingForItToApply() {
    long id = openStream(1, EPOCH);
    plane.proposeAccepted(new Command.TransferStream(id, 2)).join();
    PlaneStreamManager engineSide = new PlaneStreamManager(plane, completions);
    List<Boolean> completedBeforeTheSourceReturned = new CopyOnWriteArrayList<>();
    Transfers transfers =
        transfers(
            streamId -> {
              long epoch = stream(streamId).epoch();
              engineSide.closeStream(streamId, epoch).join();
              // Transfers proposes nothing before this returns: only the close's companion can
              // complete the transfer now.
              completedBeforeTheSourceReturned.add(awaitNoPendingTransfer(Duration.ofSeconds(10)));
              return epoch;
            });

    transfers.runRound(plane.state());

    Awaitility.await("the handoff returned")
        .atMost(Duration.ofSeconds(15))
        .until(() -> !completedBeforeTheSourceReturned.isEmpty());
    assertThat(completedBeforeTheSourceReturned).containsExactly(true);
    assertThat(stream(id).nodeId()).isEqualTo(2);
    assertThat(stream(id).isOpen()).isFalse();
  }

  @Test
  void aCloseThatDoesNotHandTheStreamOffProposesNoCompletion() {
    long id = openStream(1, EPOCH);
    plane.proposeAccepted(new Command.TransferStream(id, 2)).join();
    long epoch = stream(id).epoch();
    completions.expect(id, epoch + 1); // another epoch's handoff

    new PlaneStreamManager(plane, completions).closeStream(id, epoch).join();
    // Anything offered behind the close is applied before a command offered now.
    plane.proposeAccepted(new Command.KvPut("barrier", KvValue.ofUtf8("x"))).join();

    assertThat(plane.state().pendingTransfers()).containsKey(id);
    assertThat(stream(id).nodeId()).isEqualTo(1);
  }

  /** Whether the view shows no transfer pending within {@code timeout}. */
  private boolean awaitNoPendingTransfer(Duration timeout) {
    try {
      Awaitility.await().atMost(timeout).until(() -> plane.state().pendingTransfers().isEmpty());
      return true;
    } catch (ConditionTimeoutException stillPending) {
      return false;
    }
  }
}
