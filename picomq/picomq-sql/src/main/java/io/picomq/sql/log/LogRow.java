package io.picomq.sql.log;

import java.util.List;

/**
 * One row of the command log: a batch of encoded commands one writer group-committed together.
 *
 * @param writerId a random id of the {@link SqlLog} instance that wrote the row; with {@code
 *     batchSequence} it lets the writer recognize its own row when the tailer applies it
 * @param batchSequence the writer's count of rows it has attempted, from 1
 * @param commands the encoded commands in apply order; arrays are shared, not copied, so nobody may
 *     modify them
 */
public record LogRow(long writerId, long batchSequence, List<byte[]> commands) {
  public LogRow {
    commands = List.copyOf(commands);
    if (commands.isEmpty() || commands.size() > RowCodec.MAX_COMMANDS) {
      throw new IllegalArgumentException(
          "a row holds 1.." + RowCodec.MAX_COMMANDS + " commands, not " + commands.size());
    }
  }
}
