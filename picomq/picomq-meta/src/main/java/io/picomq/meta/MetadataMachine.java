package io.picomq.meta;

import io.picomq.meta.apply.Applied;
import io.picomq.meta.apply.MetadataApplier;
import io.picomq.meta.apply.Result;
import io.picomq.meta.codec.CommandCodec;
import io.picomq.meta.codec.MetadataDecodeException;
import io.picomq.meta.codec.StateCodec;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything a metadata log needs from this module, in one place: the initial state, apply, and the
 * binary forms of commands and snapshots. All methods are pure and thread-safe; states are
 * immutable values.
 *
 * <p>The log that replicates this machine is the SQL log ({@code io.picomq.sql.log.SqlLog}, adapted
 * in {@code io.picomq.server.metadata.MetadataStateMachine}). It owns the row format: a row is a
 * batch of commands, each encoded by {@link #encode}. Its tailer decodes every command of a row
 * with {@link #decode}, applies them in order with {@link #apply}, and publishes the state. A
 * snapshot is {@link #snapshot}; a restarting node does {@code state = restore(bytes)} and replays
 * the rows after it.
 */
public final class MetadataMachine {

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

  /**
   * Applies commands in order, as the log's tailer applies the commands of one row; a rejected
   * command does not stop the ones after it.
   */
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

  /** The deterministic bytes of a state: equal states give identical bytes. */
  public static byte[] snapshot(MetadataState state) {
    return StateCodec.encode(state);
  }

  /** The state a snapshot holds; refuses damaged or inconsistent bytes. */
  public static MetadataState restore(byte[] snapshot) throws MetadataDecodeException {
    return StateCodec.decode(snapshot);
  }
}
