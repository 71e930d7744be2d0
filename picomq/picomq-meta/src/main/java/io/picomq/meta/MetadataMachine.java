package io.picomq.meta;

import io.picomq.meta.apply.Applied;
import io.picomq.meta.apply.MetadataApplier;
import io.picomq.meta.apply.Result;
import io.picomq.meta.codec.CommandCodec;
import io.picomq.meta.codec.MetadataDecodeException;
import io.picomq.meta.codec.RowCodec;
import io.picomq.meta.codec.StateCodec;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything a metadata log needs from this module, in one place: the initial state, apply, and the
 * binary forms of commands, rows and snapshots. All methods are pure and thread-safe; states are
 * immutable values.
 *
 * <p>A log tailer keeps {@code state} and, for each row, does {@code AppliedRow applied =
 * applyRow(state, decodeRow(payload)); state = applied.state();} then publishes {@code state}. A
 * snapshot is {@code snapshot(state)}; a restarting node does {@code state = restore(bytes)} and
 * replays the rows after it.
 */
public final class MetadataMachine {

  /** The most commands one log row holds. */
  public static final int MAX_COMMANDS_PER_ROW = RowCodec.MAX_COMMANDS;

  private MetadataMachine() {}

  /** The state before the first row. */
  public static MetadataState initial() {
    return MetadataState.empty();
  }

  /** Applies one command; see {@link MetadataApplier}. */
  public static Applied apply(MetadataState state, Command command) {
    return MetadataApplier.apply(state, command);
  }

  /** The state after a row's commands in order, and each command's result in the same order. */
  public record AppliedRow(MetadataState state, List<Result> results) {
    public AppliedRow {
      results = List.copyOf(results);
    }
  }

  /** Applies a row's commands in order; a rejected command does not stop the ones after it. */
  public static AppliedRow applyRow(MetadataState state, List<Command> commands) {
    List<Result> results = new ArrayList<>(commands.size());
    MetadataState current = state;
    for (Command command : commands) {
      Applied applied = MetadataApplier.apply(current, command);
      current = applied.state();
      results.add(applied.result());
    }
    return new AppliedRow(current, results);
  }

  public static byte[] encode(Command command) {
    return CommandCodec.encode(command);
  }

  public static Command decode(byte[] bytes) throws MetadataDecodeException {
    return CommandCodec.decode(bytes);
  }

  /** One log row's payload; 1 to {@link #MAX_COMMANDS_PER_ROW} commands. */
  public static byte[] encodeRow(List<Command> commands) {
    return RowCodec.encode(commands);
  }

  public static List<Command> decodeRow(byte[] payload) throws MetadataDecodeException {
    return RowCodec.decode(payload);
  }

  /** The deterministic bytes of a state: equal states give identical bytes. */
  public static byte[] snapshot(MetadataState state) {
    return StateCodec.encode(state);
  }

  /** The state a snapshot holds; refuses damaged or inconsistent bytes. */
  public static MetadataState restore(byte[] snapshot) throws MetadataDecodeException {
    return StateCodec.decode(snapshot);
  }
}
