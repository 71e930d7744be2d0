package io.picomq.server.metadata;

import io.picomq.meta.MetadataMachine;
import io.picomq.meta.apply.Applied;
import io.picomq.meta.apply.Result;
import io.picomq.meta.codec.MetadataDecodeException;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import io.picomq.sql.log.LogDecodeException;
import io.picomq.sql.log.ReplicatedStateMachine;
import io.picomq.sql.log.Transition;

/** Adapts the pure {@link MetadataMachine} to the contract the SQL log replicates. */
final class MetadataStateMachine implements ReplicatedStateMachine<MetadataState, Command, Result> {

  @Override
  public MetadataState initial() {
    return MetadataMachine.initial();
  }

  @Override
  public Transition<MetadataState, Result> apply(MetadataState state, Command command) {
    Applied applied = MetadataMachine.apply(state, command);
    return new Transition<>(applied.state(), applied.result());
  }

  @Override
  public byte[] encodeCommand(Command command) {
    return MetadataMachine.encode(command);
  }

  @Override
  public Command decodeCommand(byte[] encoded) throws LogDecodeException {
    try {
      return MetadataMachine.decode(encoded);
    } catch (MetadataDecodeException e) {
      throw new LogDecodeException("undecodable metadata command: " + e.getMessage(), e);
    }
  }

  @Override
  public byte[] encodeSnapshot(MetadataState state) {
    return MetadataMachine.snapshot(state);
  }

  @Override
  public MetadataState decodeSnapshot(byte[] encoded) throws LogDecodeException {
    try {
      return MetadataMachine.restore(encoded);
    } catch (MetadataDecodeException e) {
      throw new LogDecodeException("undecodable metadata snapshot: " + e.getMessage(), e);
    }
  }
}
