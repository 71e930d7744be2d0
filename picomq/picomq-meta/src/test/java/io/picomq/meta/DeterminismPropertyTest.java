package io.picomq.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.apply.Applied;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.StateChecks;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * What every node relies on to agree with the others: apply is a function of (state, command)
 * alone, and a snapshot is a faithful stand-in for the log prefix it replaces. Command sequences
 * come from {@link Scenario}; jqwik reports the seed of a failing sequence, and {@code
 * Scenario.commands(seed, length)} rebuilds it exactly.
 */
class DeterminismPropertyTest {

  @Property(tries = 200)
  void theSameCommandsOnTwoFreshStatesGiveEqualStatesAndIdenticalSnapshots(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 300) int length) {
    List<Command> commands = Scenario.commands(seed, length);

    MetadataMachine.AppliedRow first =
        MetadataMachine.applyRow(MetadataMachine.initial(), commands);
    MetadataMachine.AppliedRow second =
        MetadataMachine.applyRow(MetadataMachine.initial(), commands);

    assertThat(second.state()).isEqualTo(first.state());
    assertThat(second.results()).isEqualTo(first.results());
    assertThat(MetadataMachine.snapshot(second.state()))
        .isEqualTo(MetadataMachine.snapshot(first.state()));
  }

  @Property(tries = 200)
  void snapshotRestoreAndContinueEqualsNeverSnapshotting(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 300) int length,
      @ForAll @IntRange(min = 0, max = 300) int splitAt)
      throws Exception {
    List<Command> commands = Scenario.commands(seed, length);
    int split = Math.min(splitAt, length);

    MetadataMachine.AppliedRow straight =
        MetadataMachine.applyRow(MetadataMachine.initial(), commands);
    MetadataState prefix =
        MetadataMachine.applyRow(MetadataMachine.initial(), commands.subList(0, split)).state();
    MetadataState restored = MetadataMachine.restore(MetadataMachine.snapshot(prefix));
    MetadataMachine.AppliedRow resumed =
        MetadataMachine.applyRow(restored, commands.subList(split, length));

    assertThat(restored).isEqualTo(prefix);
    assertThat(resumed.state()).isEqualTo(straight.state());
    assertThat(resumed.results()).isEqualTo(straight.results().subList(split, length));
    assertThat(MetadataMachine.snapshot(resumed.state()))
        .isEqualTo(MetadataMachine.snapshot(straight.state()));
  }

  /**
   * After every command the state is internally consistent, and a refused or redundant command
   * returns the very state it was given. The coverage checks make sure the scenarios reach the
   * interesting paths rather than being refused wholesale.
   */
  @Property(tries = 150)
  void everyStepKeepsTheStateConsistent(
      @ForAll long seed, @ForAll @IntRange(min = 50, max = 300) int length) {
    MetadataState state = MetadataMachine.initial();
    for (Command command : Scenario.commands(seed, length)) {
      Applied applied = MetadataMachine.apply(state, command);
      if (!(applied.result() instanceof Result.Ok)) {
        assertThat(applied.state()).isSameAs(state);
      }
      state = applied.state();
      StateChecks.assertConsistent(state);
      Statistics.label("results").collect(label(command, applied.result()));
    }
    Statistics.label("results")
        .coverage(
            coverage -> {
              for (String path :
                  List.of(
                      "RegisterNode Ok",
                      "OpenStream Ok",
                      "OpenStream Redundant",
                      "CloseStream Ok",
                      "TrimStream Ok",
                      "DeleteStream Ok",
                      "CommitStreamSetObject Ok",
                      "CommitStreamSetObject Redundant",
                      "CommitStreamSetObject Rejected",
                      "compaction Ok",
                      "compaction Rejected",
                      "CompactStreamObjects Ok",
                      "CompactStreamObjects Rejected",
                      "ExpirePreparedObjects Ok",
                      "CleanDestroyedObjects Ok",
                      "CleanDestroyedObjects Rejected",
                      "TransferStream Ok",
                      "CompleteTransfer Ok",
                      "KvPutIfAbsent Rejected")) {
                coverage.check(path).count(count -> count > 0);
              }
            });
  }

  private static String label(Command command, Result result) {
    String name =
        command instanceof Command.CommitStreamSetObject commit && commit.isCompaction()
            ? "compaction"
            : command.getClass().getSimpleName();
    return name + " " + result.getClass().getSimpleName();
  }
}
