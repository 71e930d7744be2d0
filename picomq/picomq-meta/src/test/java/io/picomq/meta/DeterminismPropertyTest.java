package io.picomq.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import io.picomq.meta.apply.Applied;
import io.picomq.meta.apply.Result;
import io.picomq.meta.codec.MetadataDecodeException;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.StateChecks;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What every node relies on to agree with the others: apply is a function of (state, command)
 * alone, and a snapshot is a faithful stand-in for the log prefix it replaces. Command sequences
 * come from {@link Scenario}; QuickTheories reports the seed and length of a failing sequence
 * ({@code Smallest found falsifying value(s)}), and {@code Scenario.commands(seed, length)}
 * rebuilds it exactly.
 *
 * <p>The whole run can be replayed too: QuickTheories draws a fresh seed for every property and
 * ends a failure report with {@code Seed was N}; passing it back as the system property {@code
 * QT_SEED} replays the same examples, e.g. {@code mvn -pl picomq/picomq-meta test
 * -Dtest='DeterminismPropertyTest#everyStepKeepsTheStateConsistent' -DQT_SEED=N}. The same holds
 * for every property test in this module.
 */
class DeterminismPropertyTest {

  @Test
  void theSameCommandsOnTwoFreshStatesGiveEqualStatesAndIdenticalSnapshots() {
    qt().withExamples(60)
        .forAll(longs().all(), integers().between(1, 300))
        .checkAssert(
            (seed, length) -> {
              List<Command> commands = Scenario.commands(seed, length);

              MetadataMachine.AppliedRow first =
                  MetadataMachine.applyRow(MetadataMachine.initial(), commands);
              MetadataMachine.AppliedRow second =
                  MetadataMachine.applyRow(MetadataMachine.initial(), commands);

              assertThat(second.state()).isEqualTo(first.state());
              assertThat(second.results()).isEqualTo(first.results());
              assertThat(MetadataMachine.snapshot(second.state()))
                  .isEqualTo(MetadataMachine.snapshot(first.state()));
            });
  }

  @Test
  void snapshotRestoreAndContinueEqualsNeverSnapshotting() {
    qt().withExamples(60)
        .forAll(longs().all(), integers().between(1, 300), integers().between(0, 300))
        .checkAssert(
            (seed, length, splitAt) -> {
              List<Command> commands = Scenario.commands(seed, length);
              int split = Math.min(splitAt, length);

              MetadataMachine.AppliedRow straight =
                  MetadataMachine.applyRow(MetadataMachine.initial(), commands);
              MetadataState prefix =
                  MetadataMachine.applyRow(MetadataMachine.initial(), commands.subList(0, split))
                      .state();
              MetadataState restored = restored(MetadataMachine.snapshot(prefix));
              MetadataMachine.AppliedRow resumed =
                  MetadataMachine.applyRow(restored, commands.subList(split, length));

              assertThat(restored).isEqualTo(prefix);
              assertThat(resumed.state()).isEqualTo(straight.state());
              assertThat(resumed.results()).isEqualTo(straight.results().subList(split, length));
              assertThat(MetadataMachine.snapshot(resumed.state()))
                  .isEqualTo(MetadataMachine.snapshot(straight.state()));
            });
  }

  /**
   * After every command the state is internally consistent, and a refused or redundant command
   * returns the very state it was given. The coverage check after the run makes sure the scenarios
   * reach the interesting paths rather than being refused wholesale.
   */
  @Test
  void everyStepKeepsTheStateConsistent() {
    Set<String> reached = new HashSet<>();
    qt().withExamples(40)
        .forAll(longs().all(), integers().between(50, 300))
        .checkAssert(
            (seed, length) -> {
              MetadataState state = MetadataMachine.initial();
              for (Command command : Scenario.commands(seed, length)) {
                Applied applied = MetadataMachine.apply(state, command);
                if (!(applied.result() instanceof Result.Ok)) {
                  assertThat(applied.state()).isSameAs(state);
                }
                state = applied.state();
                StateChecks.assertConsistent(state);
                reached.add(label(command, applied.result()));
              }
            });
    assertThat(reached)
        .as("command results the scenarios reached")
        .contains(
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
            "KvPutIfAbsent Rejected");
  }

  /** Restores a snapshot; a refusal fails the example (QuickTheories' lambdas cannot throw it). */
  private static MetadataState restored(byte[] snapshot) {
    try {
      return MetadataMachine.restore(snapshot);
    } catch (MetadataDecodeException e) {
      throw new AssertionError("refused its own snapshot: " + e.getMessage(), e);
    }
  }

  private static String label(Command command, Result result) {
    String name =
        command instanceof Command.CommitStreamSetObject commit && commit.isCompaction()
            ? "compaction"
            : command.getClass().getSimpleName();
    return name + " " + result.getClass().getSimpleName();
  }
}
