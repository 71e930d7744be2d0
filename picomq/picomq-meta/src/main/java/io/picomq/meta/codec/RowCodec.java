package io.picomq.meta.codec;

import io.picomq.meta.codec.MetadataDecodeException.Kind;
import io.picomq.meta.command.Command;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The payload of one metadata log row: the commands a flusher group-committed together.
 *
 * <pre>
 * version u8 (1) | count u16 (1..256) | count x (length i32 | command) | crc32c i32
 * </pre>
 *
 * The CRC32C covers every byte before it. It is checked first, so a damaged row is refused as a
 * whole before any command is looked at.
 */
public final class RowCodec {

  public static final int VERSION = 1;

  /** The most commands one row holds. */
  public static final int MAX_COMMANDS = 256;

  private static final int HEADER_BYTES = 3;
  private static final int CRC_BYTES = 4;

  private RowCodec() {}

  /**
   * @throws IllegalArgumentException when {@code commands} is empty or longer than {@link
   *     #MAX_COMMANDS}
   */
  public static byte[] encode(List<Command> commands) {
    if (commands.isEmpty() || commands.size() > MAX_COMMANDS) {
      throw new IllegalArgumentException(
          "a row holds 1.." + MAX_COMMANDS + " commands, got " + commands.size());
    }
    BinaryWriter out = new BinaryWriter(64 * commands.size());
    out.u8(VERSION);
    out.u16(commands.size());
    for (Command command : commands) {
      int lengthAt = out.position();
      out.i32(0); // patched below, once the command's length is known
      CommandCodec.write(out, command);
      int length = out.position() - lengthAt - 4;
      byte[] array = out.array();
      for (int i = 0; i < 4; i++) {
        array[lengthAt + i] = (byte) (length >>> (24 - 8 * i));
      }
    }
    out.i32(crc(out.array(), out.position()));
    return out.toByteArray();
  }

  public static List<Command> decode(byte[] row) throws MetadataDecodeException {
    if (row.length < HEADER_BYTES + CRC_BYTES) {
      throw new MetadataDecodeException(Kind.TRUNCATED, "row of " + row.length + " bytes");
    }
    int body = row.length - CRC_BYTES;
    BinaryReader trailer = new BinaryReader(row, body, CRC_BYTES);
    if (trailer.i32() != crc(row, body)) {
      throw new MetadataDecodeException(Kind.CHECKSUM_MISMATCH, "row checksum");
    }
    BinaryReader in = new BinaryReader(row, 0, body);
    int version = in.u8();
    if (version != VERSION) {
      throw new MetadataDecodeException(Kind.UNKNOWN_VERSION, "row version " + version);
    }
    int count = in.u16();
    if (count < 1 || count > MAX_COMMANDS) {
      throw new MetadataDecodeException(Kind.INVALID_FIELD, "row of " + count + " commands");
    }
    List<Command> commands = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int length = in.i32();
      if (length < 0 || length > in.remaining()) {
        throw new MetadataDecodeException(
            Kind.TRUNCATED,
            "command " + i + " of " + length + " bytes, " + in.remaining() + " left");
      }
      commands.add(CommandCodec.decode(row, in.position(), length));
      in.skip(length);
    }
    in.expectEnd("row");
    return List.copyOf(commands);
  }

  private static int crc(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    return (int) crc.getValue();
  }
}
