package io.picomq.meta.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.command.NewStreamObject;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.StateChecks;
import io.picomq.meta.state.StreamEntry;
import java.util.List;

/**
 * Applies commands one at a time to a state it keeps, checking after each one what every caller
 * relies on: a redundant or rejected command returns the very state it was given, and the state
 * stays internally consistent.
 */
final class ApplyHarness {

  MetadataState state = MetadataState.empty();

  Result apply(Command command) {
    MetadataState before = state;
    Applied applied = MetadataApplier.apply(before, command);
    if (!(applied.result() instanceof Result.Ok)) {
      assertThat(applied.state()).as("state after %s", applied.result()).isSameAs(before);
    }
    state = applied.state();
    StateChecks.assertConsistent(state);
    return applied.result();
  }

  Outcome ok(Command command) {
    Result result = apply(command);
    assertThat(result).as("%s", command).isInstanceOf(Result.Ok.class);
    return ((Result.Ok) result).outcome();
  }

  Outcome redundant(Command command) {
    Result result = apply(command);
    assertThat(result).as("%s", command).isInstanceOf(Result.Redundant.class);
    return ((Result.Redundant) result).outcome();
  }

  Result.Rejected rejected(Command command, RejectReason reason) {
    Result result = apply(command);
    assertThat(result).as("%s", command).isInstanceOf(Result.Rejected.class);
    Result.Rejected rejected = (Result.Rejected) result;
    assertThat(rejected.reason()).as(rejected.message()).isEqualTo(reason);
    return rejected;
  }

  StreamEntry stream(long streamId) {
    return state.stream(streamId).orElseThrow();
  }

  // ---- scenario shortcuts ----

  void register(int nodeId, long nodeEpoch) {
    ok(new Command.RegisterNode(nodeId, nodeEpoch, "node-" + nodeId + ":9092", 1));
  }

  long create() {
    return ((Outcome.StreamsCreated) ok(new Command.CreateStream())).firstStreamId();
  }

  long open(long streamId, int nodeId, long nodeEpoch) {
    return ((Outcome.StreamOpened) ok(new Command.OpenStream(streamId, nodeId, nodeEpoch))).epoch();
  }

  /** Prepares {@code count} ids expiring at {@code expiresAtMillis}; returns the first. */
  long prepare(int count, long expiresAtMillis) {
    return ((Outcome.ObjectsPrepared) ok(new Command.PrepareObjects(count, expiresAtMillis)))
        .firstObjectId();
  }

  /** Commits new data of one stream at its current end, as one stream-set object. */
  long append(int nodeId, long nodeEpoch, long streamId, long records) {
    long objectId = prepare(1, 1_000);
    StreamEntry stream = stream(streamId);
    ok(
        commit(
            objectId,
            nodeId,
            nodeEpoch,
            List.of(
                new CommittedRange(
                    streamId, stream.epoch(), stream.endOffset(), stream.endOffset() + records)),
            List.of()));
    return objectId;
  }

  /** Commits new data of one stream at its current end, as one stream object. */
  long appendStreamObject(int nodeId, long nodeEpoch, long streamId, long records) {
    long objectId = prepare(1, 1_000);
    StreamEntry stream = stream(streamId);
    ok(
        commit(
            Command.CommitStreamSetObject.NO_OBJECT,
            nodeId,
            nodeEpoch,
            List.of(),
            List.of(
                new NewStreamObject(
                    objectId,
                    streamId,
                    stream.epoch(),
                    stream.endOffset(),
                    stream.endOffset() + records,
                    records * 100))));
    return objectId;
  }

  static Command.CommitStreamSetObject commit(
      long objectId,
      int nodeId,
      long nodeEpoch,
      List<CommittedRange> ranges,
      List<NewStreamObject> streamObjects) {
    return new Command.CommitStreamSetObject(
        objectId,
        nodeId,
        nodeEpoch,
        objectId == Command.CommitStreamSetObject.NO_OBJECT ? 0 : 4096,
        ranges,
        streamObjects,
        List.of());
  }
}
