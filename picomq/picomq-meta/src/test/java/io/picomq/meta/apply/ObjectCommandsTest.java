package io.picomq.meta.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.command.Command;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Object ids and garbage: prepare, expire, clean. */
class ObjectCommandsTest {

  private final ApplyHarness machine = new ApplyHarness();

  @Test
  void preparedIdsAreConsecutiveAndCarryTheProposersExpiry() {
    assertThat(machine.ok(new Command.PrepareObjects(3, 5_000)))
        .isEqualTo(new Outcome.ObjectsPrepared(0, 3, 5_000));
    assertThat(machine.ok(new Command.PrepareObjects(2, 7_000)))
        .isEqualTo(new Outcome.ObjectsPrepared(3, 2, 7_000));

    assertThat(machine.state.preparedObjects())
        .containsEntry(0L, 5_000L)
        .containsEntry(2L, 5_000L)
        .containsEntry(4L, 7_000L)
        .hasSize(5);
    assertThat(machine.state.nextObjectId()).isEqualTo(5);
  }

  @Test
  void expiryReclaimsIdsDueAtOrBeforeNowIntoTheDestructionQueue() {
    machine.prepare(2, 100); // 0, 1
    machine.prepare(1, 200); // 2

    assertThat(machine.ok(new Command.ExpirePreparedObjects(100)))
        .isEqualTo(new Outcome.PreparedObjectsExpired(2));
    assertThat(machine.state.preparedObjects()).containsOnlyKeys(2L);
    assertThat(machine.state.destructionQueue()).containsExactly(0L, 1L);
  }

  @Test
  void expiryWithNothingDueIsRedundant() {
    machine.prepare(1, 100);

    assertThat(machine.redundant(new Command.ExpirePreparedObjects(99)))
        .isEqualTo(new Outcome.PreparedObjectsExpired(0));
  }

  @Test
  void cleaningForgetsDestroyedIdsAndRepeatingItIsRedundant() {
    machine.prepare(3, 100);
    machine.ok(new Command.ExpirePreparedObjects(100));

    assertThat(machine.ok(new Command.CleanDestroyedObjects(List.of(0L, 2L, 9L))))
        .isEqualTo(new Outcome.DestroyedObjectsCleaned(2));
    assertThat(machine.state.destructionQueue()).containsExactly(1L);
    assertThat(machine.redundant(new Command.CleanDestroyedObjects(List.of(0L, 2L))))
        .isEqualTo(new Outcome.DestroyedObjectsCleaned(0));
  }

  @Test
  void cleaningAnObjectThatIsStillCommittedOrPreparedIsRefused() {
    machine.register(1, 100);
    long stream = machine.create();
    machine.open(stream, 1, 100);
    long committed = machine.append(1, 100, stream, 5);
    long prepared = machine.prepare(1, 1_000);
    machine.ok(new Command.TrimStream(stream, 0, 5)); // committed is destroyed now...
    long live = machine.append(1, 100, stream, 5);

    machine.rejected(
        new Command.CleanDestroyedObjects(List.of(committed, live)),
        RejectReason.OBJECT_STILL_REACHABLE);
    machine.rejected(
        new Command.CleanDestroyedObjects(List.of(prepared)), RejectReason.OBJECT_STILL_REACHABLE);
    assertThat(machine.state.destructionQueue()).containsExactly(committed);
  }
}
