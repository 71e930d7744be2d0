package io.picomq.sql.kv;

import io.picomq.sql.log.LogDecodeException;
import io.picomq.sql.log.ReplicatedStateMachine;
import io.picomq.sql.log.Transition;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.pcollections.HashTreePMap;
import org.pcollections.PMap;

/**
 * A small, real, deterministic state machine for testing the log: a string map with conditional
 * puts. Encodings are versioned; unknown versions and truncated bytes are decode errors.
 */
public final class KvMachine implements ReplicatedStateMachine<KvState, KvCommand, KvResult> {
  private static final byte VERSION = 1;
  private static final byte PUT = 1;
  private static final byte PUT_IF_ABSENT = 2;
  private static final byte COMPARE_AND_PUT = 3;
  private static final byte DELETE = 4;

  @Override
  public KvState initial() {
    return KvState.EMPTY;
  }

  @Override
  public Transition<KvState, KvResult> apply(KvState state, KvCommand command) {
    Optional<String> previous = Optional.ofNullable(state.entries().get(command.key()));
    PMap<String, String> entries =
        switch (command) {
          case KvCommand.Put put -> state.entries().plus(put.key(), put.value());
          case KvCommand.PutIfAbsent put ->
              previous.isPresent() ? state.entries() : state.entries().plus(put.key(), put.value());
          case KvCommand.CompareAndPut put ->
              previous.equals(Optional.of(put.expected()))
                  ? state.entries().plus(put.key(), put.value())
                  : state.entries();
          case KvCommand.Delete delete -> state.entries().minus(delete.key());
        };
    long sequence = state.applied() + 1;
    long orderHash = state.orderHash() * 1_000_003L + Arrays.hashCode(encodeCommand(command));
    return new Transition<>(
        new KvState(entries, sequence, orderHash),
        new KvResult(sequence, entries != state.entries(), previous));
  }

  @Override
  public byte[] encodeCommand(KvCommand command) {
    return write(
        out -> {
          out.writeByte(VERSION);
          switch (command) {
            case KvCommand.Put put -> {
              out.writeByte(PUT);
              out.writeUTF(put.key());
              out.writeUTF(put.value());
            }
            case KvCommand.PutIfAbsent put -> {
              out.writeByte(PUT_IF_ABSENT);
              out.writeUTF(put.key());
              out.writeUTF(put.value());
            }
            case KvCommand.CompareAndPut put -> {
              out.writeByte(COMPARE_AND_PUT);
              out.writeUTF(put.key());
              out.writeUTF(put.expected());
              out.writeUTF(put.value());
            }
            case KvCommand.Delete delete -> {
              out.writeByte(DELETE);
              out.writeUTF(delete.key());
            }
          }
        });
  }

  @Override
  public KvCommand decodeCommand(byte[] encoded) throws LogDecodeException {
    ByteBuffer in = ByteBuffer.wrap(encoded);
    try {
      requireVersion(in.get(), "command");
      byte op = in.get();
      KvCommand command =
          switch (op) {
            case PUT -> new KvCommand.Put(string(in), string(in));
            case PUT_IF_ABSENT -> new KvCommand.PutIfAbsent(string(in), string(in));
            case COMPARE_AND_PUT -> new KvCommand.CompareAndPut(string(in), string(in), string(in));
            case DELETE -> new KvCommand.Delete(string(in));
            default -> throw new LogDecodeException("unknown kv command op " + op);
          };
      requireConsumed(in);
      return command;
    } catch (BufferUnderflowException e) {
      throw new LogDecodeException("kv command is truncated", e);
    }
  }

  @Override
  public byte[] encodeSnapshot(KvState state) {
    return write(
        out -> {
          out.writeByte(VERSION);
          out.writeLong(state.applied());
          out.writeLong(state.orderHash());
          out.writeInt(state.entries().size());
          // Sorted: equal states must encode to equal bytes, whatever the map's iteration order.
          for (Map.Entry<String, String> entry : new TreeMap<>(state.entries()).entrySet()) {
            out.writeUTF(entry.getKey());
            out.writeUTF(entry.getValue());
          }
        });
  }

  @Override
  public KvState decodeSnapshot(byte[] encoded) throws LogDecodeException {
    ByteBuffer in = ByteBuffer.wrap(encoded);
    try {
      requireVersion(in.get(), "snapshot");
      long applied = in.getLong();
      long orderHash = in.getLong();
      int count = in.getInt();
      if (count < 0) {
        throw new LogDecodeException("negative entry count " + count);
      }
      PMap<String, String> entries = HashTreePMap.empty();
      for (int i = 0; i < count; i++) {
        entries = entries.plus(string(in), string(in));
      }
      requireConsumed(in);
      return new KvState(entries, applied, orderHash);
    } catch (BufferUnderflowException e) {
      throw new LogDecodeException("kv snapshot is truncated", e);
    }
  }

  private static void requireVersion(byte version, String what) throws LogDecodeException {
    if (version != VERSION) {
      throw new LogDecodeException("unknown kv " + what + " version " + version);
    }
  }

  private static void requireConsumed(ByteBuffer in) throws LogDecodeException {
    if (in.hasRemaining()) {
      throw new LogDecodeException(in.remaining() + " trailing bytes");
    }
  }

  /** Reads what {@link DataOutputStream#writeUTF} wrote (ASCII-safe modified UTF-8). */
  private static String string(ByteBuffer in) throws LogDecodeException {
    int length = Short.toUnsignedInt(in.getShort());
    if (length > in.remaining()) {
      throw new LogDecodeException("string of " + length + " bytes, " + in.remaining() + " left");
    }
    byte[] bytes = new byte[length];
    in.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private interface Writer {
    void write(DataOutputStream out) throws IOException;
  }

  private static byte[] write(Writer writer) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      writer.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
