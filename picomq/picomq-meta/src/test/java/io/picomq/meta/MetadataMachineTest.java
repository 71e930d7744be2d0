package io.picomq.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.apply.Outcome;
import io.picomq.meta.apply.RejectReason;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The surface a metadata log uses: apply a row's commands, snapshot, restore. */
class MetadataMachineTest {

  @Test
  void aRowIsAppliedInOrderAndARejectedCommandDoesNotStopTheRest() {
    List<Command> row =
        List.of(
            new Command.RegisterNode(1, 100, "a:1", 1),
            new Command.OpenStream(0, 1, 100), // no stream 0 yet
            new Command.CreateStream(),
            new Command.OpenStream(0, 1, 100));

    MetadataMachine.AppliedRow applied = MetadataMachine.applyRow(MetadataMachine.initial(), row);

    assertThat(applied.results()).hasSize(4);
    assertThat(applied.results().get(1))
        .isInstanceOfSatisfying(
            Result.Rejected.class,
            rejected -> assertThat(rejected.reason()).isEqualTo(RejectReason.UNKNOWN_STREAM));
    assertThat(applied.results().get(3))
        .isEqualTo(new Result.Ok(new Outcome.StreamOpened(0, 0, 0, 0)));
    assertThat(applied.state().stream(0).orElseThrow().isOpen()).isTrue();
  }

  @Test
  void aRestoredSnapshotServesTheSameReadsAsTheStateItCameFrom() throws Exception {
    MetadataState state =
        MetadataMachine.applyRow(
                MetadataMachine.initial(),
                List.of(new Command.CreateStreams(3), new Command.DeleteStream(1)))
            .state();

    MetadataState restored = MetadataMachine.restore(MetadataMachine.snapshot(state));

    assertThat(restored.streams().keySet()).containsExactly(0L, 2L);
    assertThat(restored.wasDeleted(1)).isTrue();
    assertThat(restored.nextStreamId()).isEqualTo(3);
  }

  @Test
  void singleCommandsRoundTripThroughTheFacade() throws Exception {
    Command command = new Command.TrimStream(4, 2, 100);

    assertThat(MetadataMachine.decode(MetadataMachine.encode(command))).isEqualTo(command);
  }
}
