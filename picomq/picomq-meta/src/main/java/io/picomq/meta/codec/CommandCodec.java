package io.picomq.meta.codec;

import io.picomq.meta.codec.MetadataDecodeException.Kind;
import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.command.NewStreamObject;
import io.picomq.meta.state.KvValue;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary form of one command: {@code type u8 | version u8 | fields}, big-endian.
 *
 * <p>Fields by type (all at version 1; {@code str} is a u16 length and UTF-8 bytes, {@code bytes}
 * an i32 length and the bytes, {@code list<T>} an i32 count and the elements):
 *
 * <pre>
 *  1 RegisterNode          nodeId i32, nodeEpoch i64, address str, slots i32
 *  2 SetNodeSlots          nodeId i32, slots i32
 *  3 PlaceStream           streamId i64
 *  4 CreateStream          (none)
 *  5 CreateStreams         count i32
 *  6 OpenStream            streamId i64, nodeId i32, nodeEpoch i64
 *  7 TrimStream            streamId i64, epoch i64, newStartOffset i64
 *  8 CloseStream           streamId i64, epoch i64, nodeId i32, nodeEpoch i64
 *  9 DeleteStream          streamId i64
 * 10 PrepareObjects        count i32, expiresAtMillis i64
 * 11 CommitStreamSetObject objectId i64, nodeId i32, nodeEpoch i64, objectSize i64,
 *                          list&lt;streamId i64, epoch i64, start i64, end i64&gt; ranges,
 *                          list&lt;objectId i64, streamId i64, epoch i64, start i64, end i64,
 *                               size i64&gt; streamObjects,
 *                          list&lt;i64&gt; compactedObjectIds
 * 12 CompactStreamObjects  objectId i64, streamId i64, start i64, end i64, size i64,
 *                          list&lt;i64&gt; sourceObjectIds, nodeId i32, nodeEpoch i64
 * 13 ExpirePreparedObjects nowMillis i64
 * 14 CleanDestroyedObjects list&lt;i64&gt; objectIds
 * 15 KvPut                 key str, value bytes
 * 16 KvPutIfAbsent         key str, value bytes
 * 17 KvDelete              key str
 * 18 TransferStream        streamId i64, toNodeId i32
 * 19 CompleteTransfer      streamId i64, closedEpoch i64
 * 20 TakeOverNode          nodeId i32, nodeEpoch i64, takerNodeId i32, takerNodeEpoch i64
 * 21 CancelTransfer        streamId i64
 * 22 CloseStreamAt         streamId i64, epoch i64, nodeId i32, nodeEpoch i64,
 *                          expectedEndOffset i64 (a CloseStream with an expected end offset;
 *                          one without keeps type 8 and its bytes)
 * </pre>
 *
 * A new field or meaning gets a new version of that type; a decoder refuses versions it does not
 * know, so a node never applies a command it only partly understands.
 */
public final class CommandCodec {

  /** The version every command type is written at. */
  public static final int VERSION = 1;

  static final int REGISTER_NODE = 1;
  static final int SET_NODE_SLOTS = 2;
  static final int PLACE_STREAM = 3;
  static final int CREATE_STREAM = 4;
  static final int CREATE_STREAMS = 5;
  static final int OPEN_STREAM = 6;
  static final int TRIM_STREAM = 7;
  static final int CLOSE_STREAM = 8;
  static final int DELETE_STREAM = 9;
  static final int PREPARE_OBJECTS = 10;
  static final int COMMIT_STREAM_SET_OBJECT = 11;
  static final int COMPACT_STREAM_OBJECTS = 12;
  static final int EXPIRE_PREPARED_OBJECTS = 13;
  static final int CLEAN_DESTROYED_OBJECTS = 14;
  static final int KV_PUT = 15;
  static final int KV_PUT_IF_ABSENT = 16;
  static final int KV_DELETE = 17;
  static final int TRANSFER_STREAM = 18;
  static final int COMPLETE_TRANSFER = 19;
  static final int TAKE_OVER_NODE = 20;
  static final int CANCEL_TRANSFER = 21;
  static final int CLOSE_STREAM_AT = 22;

  private CommandCodec() {}

  public static byte[] encode(Command command) {
    BinaryWriter out = new BinaryWriter(64);
    write(out, command);
    return out.toByteArray();
  }

  /** Decodes exactly one command that fills {@code bytes}. */
  public static Command decode(byte[] bytes) throws MetadataDecodeException {
    BinaryReader in = new BinaryReader(bytes, 0, bytes.length);
    Command command = read(in);
    in.expectEnd("command");
    return command;
  }

  static void write(BinaryWriter out, Command command) {
    switch (command) {
      case Command.RegisterNode c -> {
        header(out, REGISTER_NODE);
        out.i32(c.nodeId());
        out.i64(c.nodeEpoch());
        out.string(c.advertisedAddress());
        out.i32(c.slots());
      }
      case Command.SetNodeSlots c -> {
        header(out, SET_NODE_SLOTS);
        out.i32(c.nodeId());
        out.i32(c.slots());
      }
      case Command.PlaceStream c -> {
        header(out, PLACE_STREAM);
        out.i64(c.streamId());
      }
      case Command.CreateStream c -> header(out, CREATE_STREAM);
      case Command.CreateStreams c -> {
        header(out, CREATE_STREAMS);
        out.i32(c.count());
      }
      case Command.OpenStream c -> {
        header(out, OPEN_STREAM);
        out.i64(c.streamId());
        out.i32(c.nodeId());
        out.i64(c.nodeEpoch());
      }
      case Command.TrimStream c -> {
        header(out, TRIM_STREAM);
        out.i64(c.streamId());
        out.i64(c.epoch());
        out.i64(c.newStartOffset());
      }
      case Command.CloseStream c -> {
        boolean expectsEnd = c.expectedEndOffset() != Command.CloseStream.ANY_END;
        header(out, expectsEnd ? CLOSE_STREAM_AT : CLOSE_STREAM);
        out.i64(c.streamId());
        out.i64(c.epoch());
        out.i32(c.nodeId());
        out.i64(c.nodeEpoch());
        if (expectsEnd) {
          out.i64(c.expectedEndOffset());
        }
      }
      case Command.DeleteStream c -> {
        header(out, DELETE_STREAM);
        out.i64(c.streamId());
      }
      case Command.PrepareObjects c -> {
        header(out, PREPARE_OBJECTS);
        out.i32(c.count());
        out.i64(c.expiresAtMillis());
      }
      case Command.CommitStreamSetObject c -> writeCommit(out, c);
      case Command.CompactStreamObjects c -> {
        header(out, COMPACT_STREAM_OBJECTS);
        out.i64(c.objectId());
        out.i64(c.streamId());
        out.i64(c.startOffset());
        out.i64(c.endOffset());
        out.i64(c.objectSizeBytes());
        writeIds(out, c.sourceObjectIds());
        out.i32(c.nodeId());
        out.i64(c.nodeEpoch());
      }
      case Command.ExpirePreparedObjects c -> {
        header(out, EXPIRE_PREPARED_OBJECTS);
        out.i64(c.nowMillis());
      }
      case Command.CleanDestroyedObjects c -> {
        header(out, CLEAN_DESTROYED_OBJECTS);
        writeIds(out, c.objectIds());
      }
      case Command.KvPut c -> {
        header(out, KV_PUT);
        out.string(c.key());
        out.bytes(c.value().toByteArray());
      }
      case Command.KvPutIfAbsent c -> {
        header(out, KV_PUT_IF_ABSENT);
        out.string(c.key());
        out.bytes(c.value().toByteArray());
      }
      case Command.KvDelete c -> {
        header(out, KV_DELETE);
        out.string(c.key());
      }
      case Command.TransferStream c -> {
        header(out, TRANSFER_STREAM);
        out.i64(c.streamId());
        out.i32(c.toNodeId());
      }
      case Command.CompleteTransfer c -> {
        header(out, COMPLETE_TRANSFER);
        out.i64(c.streamId());
        out.i64(c.closedEpoch());
      }
      case Command.TakeOverNode c -> {
        header(out, TAKE_OVER_NODE);
        out.i32(c.nodeId());
        out.i64(c.nodeEpoch());
        out.i32(c.takerNodeId());
        out.i64(c.takerNodeEpoch());
      }
      case Command.CancelTransfer c -> {
        header(out, CANCEL_TRANSFER);
        out.i64(c.streamId());
      }
    }
  }

  static Command read(BinaryReader in) throws MetadataDecodeException {
    int type = in.u8();
    if (type < REGISTER_NODE || type > CLOSE_STREAM_AT) {
      throw new MetadataDecodeException(Kind.UNKNOWN_TYPE, "command type " + type);
    }
    int version = in.u8();
    if (version != VERSION) {
      throw new MetadataDecodeException(
          Kind.UNKNOWN_VERSION, "command type " + type + " version " + version);
    }
    try {
      return readFields(in, type);
    } catch (IllegalArgumentException invalid) {
      throw new MetadataDecodeException(
          Kind.INVALID_FIELD, "command type " + type + ": " + invalid.getMessage(), invalid);
    }
  }

  private static Command readFields(BinaryReader in, int type) throws MetadataDecodeException {
    return switch (type) {
      case REGISTER_NODE ->
          new Command.RegisterNode(in.i32(), in.i64(), in.string("address"), in.i32());
      case SET_NODE_SLOTS -> new Command.SetNodeSlots(in.i32(), in.i32());
      case PLACE_STREAM -> new Command.PlaceStream(in.i64());
      case CREATE_STREAM -> new Command.CreateStream();
      case CREATE_STREAMS -> new Command.CreateStreams(in.i32());
      case OPEN_STREAM -> new Command.OpenStream(in.i64(), in.i32(), in.i64());
      case TRIM_STREAM -> new Command.TrimStream(in.i64(), in.i64(), in.i64());
      case CLOSE_STREAM -> new Command.CloseStream(in.i64(), in.i64(), in.i32(), in.i64());
      case CLOSE_STREAM_AT ->
          new Command.CloseStream(in.i64(), in.i64(), in.i32(), in.i64(), in.i64());
      case DELETE_STREAM -> new Command.DeleteStream(in.i64());
      case PREPARE_OBJECTS -> new Command.PrepareObjects(in.i32(), in.i64());
      case COMMIT_STREAM_SET_OBJECT -> readCommit(in);
      case COMPACT_STREAM_OBJECTS ->
          new Command.CompactStreamObjects(
              in.i64(), in.i64(), in.i64(), in.i64(), in.i64(), readIds(in), in.i32(), in.i64());
      case EXPIRE_PREPARED_OBJECTS -> new Command.ExpirePreparedObjects(in.i64());
      case CLEAN_DESTROYED_OBJECTS -> new Command.CleanDestroyedObjects(readIds(in));
      case KV_PUT -> new Command.KvPut(in.string("key"), KvValue.of(in.bytes("value")));
      case KV_PUT_IF_ABSENT ->
          new Command.KvPutIfAbsent(in.string("key"), KvValue.of(in.bytes("value")));
      case KV_DELETE -> new Command.KvDelete(in.string("key"));
      case TRANSFER_STREAM -> new Command.TransferStream(in.i64(), in.i32());
      case COMPLETE_TRANSFER -> new Command.CompleteTransfer(in.i64(), in.i64());
      case TAKE_OVER_NODE -> new Command.TakeOverNode(in.i32(), in.i64(), in.i32(), in.i64());
      case CANCEL_TRANSFER -> new Command.CancelTransfer(in.i64());
      default -> throw new MetadataDecodeException(Kind.UNKNOWN_TYPE, "command type " + type);
    };
  }

  private static void writeCommit(BinaryWriter out, Command.CommitStreamSetObject c) {
    header(out, COMMIT_STREAM_SET_OBJECT);
    out.i64(c.objectId());
    out.i32(c.nodeId());
    out.i64(c.nodeEpoch());
    out.i64(c.objectSizeBytes());
    out.i32(c.ranges().size());
    for (CommittedRange range : c.ranges()) {
      out.i64(range.streamId());
      out.i64(range.epoch());
      out.i64(range.startOffset());
      out.i64(range.endOffset());
    }
    out.i32(c.streamObjects().size());
    for (NewStreamObject object : c.streamObjects()) {
      out.i64(object.objectId());
      out.i64(object.streamId());
      out.i64(object.epoch());
      out.i64(object.startOffset());
      out.i64(object.endOffset());
      out.i64(object.objectSizeBytes());
    }
    writeIds(out, c.compactedObjectIds());
  }

  private static Command readCommit(BinaryReader in) throws MetadataDecodeException {
    long objectId = in.i64();
    int nodeId = in.i32();
    long nodeEpoch = in.i64();
    long size = in.i64();
    int rangeCount = in.count("ranges", 32);
    List<CommittedRange> ranges = new ArrayList<>(rangeCount);
    for (int i = 0; i < rangeCount; i++) {
      ranges.add(new CommittedRange(in.i64(), in.i64(), in.i64(), in.i64()));
    }
    int objectCount = in.count("stream objects", 48);
    List<NewStreamObject> objects = new ArrayList<>(objectCount);
    for (int i = 0; i < objectCount; i++) {
      objects.add(new NewStreamObject(in.i64(), in.i64(), in.i64(), in.i64(), in.i64(), in.i64()));
    }
    return new Command.CommitStreamSetObject(
        objectId, nodeId, nodeEpoch, size, ranges, objects, readIds(in));
  }

  private static void writeIds(BinaryWriter out, List<Long> ids) {
    out.i32(ids.size());
    for (long id : ids) {
      out.i64(id);
    }
  }

  private static List<Long> readIds(BinaryReader in) throws MetadataDecodeException {
    int count = in.count("object ids", 8);
    List<Long> ids = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      ids.add(in.i64());
    }
    return ids;
  }

  private static void header(BinaryWriter out, int type) {
    out.u8(type);
    out.u8(VERSION);
  }
}
