package io.picomq.server.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.state.KvValue;
import io.picomq.sql.log.LogDecodeException;
import io.picomq.sql.log.LogRow;
import io.picomq.sql.log.RowCodec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Metadata commands in the only row format there is: the SQL log's {@link RowCodec}. */
class MetadataStateMachineTest {

  private final MetadataStateMachine machine = new MetadataStateMachine();

  @Test
  void commandsCarriedInALogRowComeBackEqualAndInOrder() throws LogDecodeException {
    List<Command> commands =
        List.of(
            new Command.RegisterNode(1, 100, "node-1:9092", 4),
            new Command.CreateStreams(3),
            new Command.OpenStream(0, 1, 100),
            new Command.PrepareObjects(1, 5_000),
            new Command.CommitStreamSetObject(
                0, 1, 100, 4096, List.of(new CommittedRange(0, 0, 0, 10)), List.of(), List.of()),
            new Command.KvPutIfAbsent("names/orders", KvValue.ofUtf8("0")),
            new Command.CloseStream(0, 0, 1, 100));

    byte[] payload =
        RowCodec.encode(new LogRow(7, 1, commands.stream().map(machine::encodeCommand).toList()));

    List<Command> decoded = new ArrayList<>();
    for (byte[] command : RowCodec.decode(payload).commands()) {
      decoded.add(machine.decodeCommand(command));
    }
    assertThat(decoded).containsExactlyElementsOf(commands);
  }

  @Test
  void aCommandOfUnknownVersionInAnIntactRowIsRefusedWithItsReason() throws LogDecodeException {
    byte[] create = machine.encodeCommand(new Command.CreateStream());
    create[1] = 9; // the command's version byte
    byte[] command =
        RowCodec.decode(RowCodec.encode(new LogRow(7, 1, List.of(create)))).commands().get(0);

    assertThatThrownBy(() -> machine.decodeCommand(command))
        .isInstanceOf(LogDecodeException.class)
        .hasMessageStartingWith("undecodable metadata command: UNKNOWN_VERSION");
  }
}
