package io.picomq.meta.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.meta.apply.Applied;
import io.picomq.meta.apply.MetadataApplier;
import io.picomq.meta.apply.Result;
import io.picomq.meta.codec.MetadataDecodeException.Kind;
import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.command.NewStreamObject;
import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class StateCodecTest {

  private static MetadataState applyAll(Command... commands) {
    MetadataState state = MetadataState.empty();
    for (Command command : commands) {
      Applied applied = MetadataApplier.apply(state, command);
      assertThat(applied.result()).as("%s", command).isInstanceOf(Result.Ok.class);
      state = applied.state();
    }
    return state;
  }

  /** A state with something in every section. */
  private static MetadataState rich() {
    return applyAll(
        new Command.RegisterNode(1, 100, "10.0.0.1:9092", 2),
        new Command.RegisterNode(2, 100, "10.0.0.2:9092", 1),
        new Command.RegisterNode(3, 100, "10.0.0.3:9092", 1),
        new Command.TakeOverNode(3, 100, 2, 100),
        new Command.CreateStreams(4),
        new Command.OpenStream(0, 1, 100),
        new Command.OpenStream(1, 1, 100),
        new Command.PlaceStream(2),
        new Command.PrepareObjects(4, 5_000),
        new Command.CommitStreamSetObject(
            0,
            1,
            100,
            4096,
            List.of(new CommittedRange(0, 0, 0, 10), new CommittedRange(1, 0, 0, 3)),
            List.of(new NewStreamObject(1, 0, 0, 10, 12, 300)),
            List.of()),
        new Command.TrimStream(1, 0, 3),
        new Command.TransferStream(0, 2),
        new Command.KvPut("names/a", KvValue.ofUtf8("0")),
        new Command.KvPut("names/b", KvValue.of(new byte[] {0, (byte) 0xFF})),
        new Command.DeleteStream(3));
  }

  private static byte[] hex(String hex) {
    return HexFormat.of().parseHex(hex.replace(" ", ""));
  }

  private static byte[] resealed(byte[] snapshot) {
    CRC32C crc = new CRC32C();
    crc.update(snapshot, 0, snapshot.length - 4);
    int value = (int) crc.getValue();
    byte[] copy = snapshot.clone();
    for (int i = 0; i < 4; i++) {
      copy[snapshot.length - 4 + i] = (byte) (value >>> (24 - 8 * i));
    }
    return copy;
  }

  private static Kind kindOf(byte[] snapshot) {
    try {
      StateCodec.decode(snapshot);
    } catch (MetadataDecodeException e) {
      return e.kind();
    }
    throw new AssertionError("decoded");
  }

  @Test
  void theEmptyStateIsLaidOutAsDocumented() {
    // "PMQS", version 2, nextStreamId 0, nextObjectId 0, seven empty sections, CRC32C
    byte[] body = hex("504D5153 02 0000000000000000 0000000000000000" + "00000000".repeat(7));
    byte[] expected = resealed(Arrays.copyOf(body, body.length + 4));

    assertThat(StateCodec.encode(MetadataState.empty())).isEqualTo(expected);
  }

  @Test
  void aStateRoundTripsToAnEqualStateAndTheSameBytes() throws Exception {
    MetadataState state = rich();
    byte[] snapshot = StateCodec.encode(state);
    MetadataState restored = StateCodec.decode(snapshot);

    assertThat(restored).isEqualTo(state);
    assertThat(restored.nodes()).isEqualTo(state.nodes()); // placement counts rebuilt
    assertThat(restored.objectsCovering(0, 0, 12)).isEqualTo(state.objectsCovering(0, 0, 12));
    assertThat(StateCodec.encode(restored)).isEqualTo(snapshot);
  }

  @Test
  void equalStatesReachedInDifferentOrdersEncodeIdentically() {
    MetadataState oneWay =
        applyAll(
            new Command.KvPut("b", KvValue.ofUtf8("2")),
            new Command.KvPut("a", KvValue.ofUtf8("1")));
    MetadataState otherWay =
        applyAll(
            new Command.KvPut("a", KvValue.ofUtf8("1")),
            new Command.KvPut("b", KvValue.ofUtf8("2")));

    assertThat(StateCodec.encode(oneWay)).isEqualTo(StateCodec.encode(otherWay));
  }

  @Test
  void aDamagedSnapshotIsRefusedByItsChecksum() {
    byte[] snapshot = StateCodec.encode(rich());
    for (int at = 0; at < snapshot.length; at++) {
      byte[] damaged = snapshot.clone();
      damaged[at] ^= 0x10;
      assertThat(kindOf(damaged)).as("byte %d", at).isEqualTo(Kind.CHECKSUM_MISMATCH);
    }
  }

  @Test
  void everyTruncationIsRefused() {
    byte[] snapshot = StateCodec.encode(rich());
    for (int length = 0; length < snapshot.length; length++) {
      byte[] prefix = Arrays.copyOf(snapshot, length);
      assertThatThrownBy(() -> StateCodec.decode(prefix))
          .as("prefix of %d bytes", length)
          .isInstanceOf(MetadataDecodeException.class);
    }
  }

  @Test
  void aVersionOneSnapshotDecodesWithEveryNodeInGoodStanding() throws Exception {
    // version 1, no streams or objects yet, one node: 1, epoch 100, "a:1", 2 slots (no taker field)
    byte[] body =
        hex(
            "504D5153 01 0000000000000000 0000000000000000"
                + "00000001 00000001 0000000000000064 0003 613A31 00000002"
                + "00000000".repeat(6));
    MetadataState state = StateCodec.decode(resealed(Arrays.copyOf(body, body.length + 4)));

    assertThat(state.node(1)).contains(new NodeRecord(1, 100, "a:1", 2, 0));
    assertThat(state.node(1).orElseThrow().isTakenOver()).isFalse();
  }

  @Test
  void anotherMagicOrVersionIsRefused() {
    byte[] snapshot = StateCodec.encode(MetadataState.empty());
    byte[] otherMagic = snapshot.clone();
    otherMagic[0] = 'X';
    byte[] otherVersion = snapshot.clone();
    otherVersion[4] = 3;

    assertThat(kindOf(resealed(otherMagic))).isEqualTo(Kind.UNKNOWN_TYPE);
    assertThat(kindOf(resealed(otherVersion))).isEqualTo(Kind.UNKNOWN_VERSION);
  }

  @Test
  void aWellSealedSnapshotOfAnImpossibleStateIsRefused() {
    byte[] oneStream = StateCodec.encode(applyAll(new Command.CreateStream()));
    // header 21 bytes, node count 4, stream count 4; the stream's nodeId is 33 bytes in
    byte[] onUnknownNode = oneStream.clone();
    onUnknownNode[29 + 33 + 3] = 5;

    assertThat(kindOf(resealed(onUnknownNode))).isEqualTo(Kind.INVALID_FIELD);
  }

  @Test
  void keysOutOfOrderAreRefused() {
    byte[] twoStreams = StateCodec.encode(applyAll(new Command.CreateStreams(2)));
    // the second stream record starts 45 bytes after the first; its id's last byte is 1
    byte[] duplicated = twoStreams.clone();
    duplicated[29 + 45 + 7] = 0;

    assertThat(kindOf(resealed(duplicated))).isEqualTo(Kind.INVALID_FIELD);
  }
}
