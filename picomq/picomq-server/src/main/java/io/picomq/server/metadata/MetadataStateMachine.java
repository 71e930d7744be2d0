package io.picomq.server.metadata;

import io.picomq.meta.MetadataMachine;
import io.picomq.meta.apply.Result;
import io.picomq.meta.codec.MetadataDecodeException;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import io.picomq.sql.log.Applied;
import io.picomq.sql.log.DecodeException;
import io.picomq.sql.log.ReplicatedStateMachine;

/** Adapts the pure {@link MetadataMachine} to the contract the SQL log replicates. */
final class MetadataStateMachine implements ReplicatedStateMachine<MetadataState, Command, Result> {

  @Override
  public MetadataState initial() {
    return MetadataMachine.initial();
  }

  @Override
  public Applied<MetadataState, Result> apply(MetadataState state, Command command) {
    io.picomq.meta.apply.Applied applied = MetadataMachine.apply(state, command);
    return new Applied<>(applied.state(), applied.result());
  }

  @Override
  public byte[] encodeCommand(Command command) {
    return MetadataMachine.encode(command);
  }

  @Override
  public Command decodeCommand(byte[] encoded) throws DecodeException {
    try {
      return MetadataMachine.decode(encoded);
    } catch (MetadataDecodeException e) {
      throw new DecodeException("undecodable metadata command: " + e.getMessage(), e);
    }
  }

  @Override
  public byte[] encodeSnapshot(MetadataState state) {
    return MetadataMachine.snapshot(state);
  }

  @Override
  public MetadataState decodeSnapshot(byte[] encoded) throws DecodeException {
    try {
      return MetadataMachine.restore(encoded);
    } catch (MetadataDecodeException e) {
      throw new DecodeException("undecodable metadata snapshot: " + e.getMessage(), e);
    }
  }
}
