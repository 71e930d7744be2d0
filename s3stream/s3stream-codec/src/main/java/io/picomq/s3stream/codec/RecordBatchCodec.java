package io.picomq.s3stream.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Encodes and decodes record batches (specification: {@code
 * s3stream/specification/record-batch.md}).
 *
 * <p>A batch is encoded once, at append time, and that form is stored everywhere (WAL body, log
 * cache, object data blocks), so {@link #readHeader} lets later stages inspect it in place.
 *
 * <p>What this format alone guarantees: it has no checksum. Decoding detects a wrong magic byte, a
 * negative payload length and a length that runs past the available bytes; any other damage (a
 * flipped bit in an id, an offset, the count or the payload) decodes to a different batch. The WAL
 * record framing ({@link WalRecordCodec}) carries the CRC that covers an encoded batch on its way
 * through the WAL.
 */
public final class RecordBatchCodec {

  private RecordBatchCodec() {}

  /**
   * Encodes {@code batch} into a new buffer from {@code allocator}.
   *
   * @return a buffer holding exactly {@link RecordBatch#encodedSize()} readable bytes; the caller
   *     owns it and releases it. The batch's payload is read without moving its reader index and is
   *     not released.
   */
  public static ByteBuf encode(RecordBatch batch, ByteBufAllocator allocator) {
    ByteBuf out = allocator.buffer(batch.encodedSize(), batch.encodedSize());
    try {
      encodeTo(batch, out);
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /**
   * Appends the encoding of {@code batch} to {@code out} at its writer index. Neither buffer is
   * released; the batch's payload reader index does not move.
   */
  public static void encodeTo(RecordBatch batch, ByteBuf out) {
    ByteBuf payload = batch.payload();
    encodeHeaderTo(batch, out);
    out.writeBytes(payload, payload.readerIndex(), payload.readableBytes());
  }

  /**
   * Appends only the {@link RecordBatchHeader#SIZE} header bytes of {@code batch} to {@code out}:
   * for a writer that keeps the payload where it is and puts the two side by side (a composite).
   */
  public static void encodeHeaderTo(RecordBatch batch, ByteBuf out) {
    out.writeByte(RecordBatchHeader.MAGIC)
        .writeLong(batch.streamId())
        .writeLong(batch.epoch())
        .writeLong(batch.baseOffset())
        .writeInt(batch.count())
        .writeInt(batch.payload().readableBytes());
  }

  /**
   * Decodes one batch at {@code buf}'s reader index and advances the reader index past it.
   *
   * @return a batch whose payload is a retained slice of {@code buf} (no copy): the caller releases
   *     it (via {@link RecordBatch#release()}) independently of {@code buf}, which stays owned by
   *     whoever owned it before.
   * @throws CorruptDataException if the magic is unknown or the bytes are too few; {@code buf} is
   *     then left unchanged
   */
  public static RecordBatch decode(ByteBuf buf) {
    RecordBatchHeader header = readHeader(buf, buf.readerIndex());
    ByteBuf payload =
        buf.retainedSlice(buf.readerIndex() + RecordBatchHeader.SIZE, header.payloadLength());
    buf.skipBytes(header.encodedSize());
    return new RecordBatch(
        header.streamId(), header.epoch(), header.baseOffset(), header.count(), payload);
  }

  /**
   * Reads the header of the encoded batch starting at absolute {@code index} of {@code buf},
   * without moving any index, and checks that the whole batch (header and payload) lies within the
   * buffer's readable bytes.
   *
   * @throws CorruptDataException if the magic is unknown, the payload length is negative, or the
   *     batch does not fit in {@code buf}'s readable bytes from {@code index}
   * @throws IllegalArgumentException if {@code index} is before the reader index (a caller bug)
   */
  public static RecordBatchHeader readHeader(ByteBuf buf, int index) {
    Objects.requireNonNull(buf, "buf");
    if (index < buf.readerIndex()) {
      throw new IllegalArgumentException(
          "index " + index + " is before the reader index " + buf.readerIndex());
    }
    long available = (long) buf.writerIndex() - index;
    checkFixedPart(available, index);
    // A view of the header's bytes (a copy when they straddle regions of a composite).
    ByteBuffer header = buf.nioBuffer(index, RecordBatchHeader.SIZE);
    return readHeader(header, header.position(), index, available);
  }

  /**
   * Decodes {@code count} consecutive batches from {@code buf}'s reader index and advances the
   * reader index past them: {@link #decode} repeated, faster. Headers are read in place through NIO
   * views of the buffer's memory regions (a copy is made only of a header that straddles two),
   * which costs a bounds check per field where a derived {@link ByteBuf} also checks, per field,
   * the reference count of the buffer it derives from.
   *
   * @return the batches, each payload a retained slice of {@code buf} as for {@link #decode}
   * @throws CorruptDataException as for {@link #decode}; nothing is then left retained, and the
   *     reader index of {@code buf} is unchanged
   */
  public static List<RecordBatch> decode(ByteBuf buf, int count) {
    int start = buf.readerIndex();
    HeaderViews views = new HeaderViews(buf);
    // Sized by what the bytes can hold, not by the count alone: it may come from damaged data.
    List<RecordBatch> batches =
        new ArrayList<>(Math.max(0, Math.min(count, buf.readableBytes() / RecordBatchHeader.SIZE)));
    try {
      for (int i = 0; i < count; i++) {
        int index = buf.readerIndex();
        RecordBatchHeader header = views.read(index);
        ByteBuf payload = buf.retainedSlice(index + RecordBatchHeader.SIZE, header.payloadLength());
        batches.add(
            new RecordBatch(
                header.streamId(), header.epoch(), header.baseOffset(), header.count(), payload));
        buf.readerIndex(index + header.encodedSize());
      }
      return batches;
    } catch (RuntimeException e) {
      batches.forEach(RecordBatch::release);
      buf.readerIndex(start);
      throw e;
    }
  }

  /** Reads headers at rising indices of one buffer through the NIO views of its regions. */
  private static final class HeaderViews {
    private final ByteBuf buf;
    private final ByteBuffer[] regions;
    private int region;
    private int regionStart;

    HeaderViews(ByteBuf buf) {
      this.buf = buf;
      this.regions = buf.nioBuffers();
      this.regionStart = buf.readerIndex();
    }

    /** The header at {@code index}, which is at or after the previous one read. */
    RecordBatchHeader read(int index) {
      while (region < regions.length - 1 && index - regionStart >= regions[region].remaining()) {
        regionStart += regions[region].remaining();
        region++;
      }
      if (region < regions.length) {
        ByteBuffer view = regions[region];
        int offset = index - regionStart;
        if (offset + RecordBatchHeader.SIZE <= view.remaining()) {
          return readHeader(view, view.position() + offset, index, buf.writerIndex() - index);
        }
      }
      return readHeader(buf, index); // straddles two regions, or is truncated
    }
  }

  /**
   * {@link #readHeader(ByteBuf, int)} on a view whose position {@code at} holds the header at
   * {@code index}, followed by {@code available} bytes in all.
   */
  private static RecordBatchHeader readHeader(ByteBuffer view, int at, int index, long available) {
    checkFixedPart(available, index);
    checkMagic(view.get(at), index);
    int payloadLength = view.getInt(at + 29);
    checkPayloadLength(payloadLength, available, index);
    return new RecordBatchHeader(
        view.getLong(at + 1),
        view.getLong(at + 9),
        view.getLong(at + 17),
        view.getInt(at + 25),
        payloadLength);
  }

  private static void checkFixedPart(long available, int index) {
    if (available < RecordBatchHeader.SIZE) {
      throw new CorruptDataException(
          CorruptDataException.Reason.TRUNCATED,
          "record batch header at index "
              + index
              + " needs "
              + RecordBatchHeader.SIZE
              + " bytes, readable "
              + Math.max(0, available));
    }
  }

  private static void checkMagic(byte magic, int index) {
    if (magic != RecordBatchHeader.MAGIC) {
      throw new CorruptDataException(
          CorruptDataException.Reason.UNKNOWN_MAGIC,
          String.format(Locale.ROOT, "record batch magic 0x%02x at index %d", magic & 0xFF, index));
    }
  }

  private static void checkPayloadLength(int payloadLength, long available, int index) {
    if (payloadLength < 0) {
      throw new CorruptDataException(
          CorruptDataException.Reason.BAD_LENGTH,
          "record batch payload length " + payloadLength + " at index " + index);
    }
    if (available - RecordBatchHeader.SIZE < payloadLength) {
      throw new CorruptDataException(
          CorruptDataException.Reason.TRUNCATED,
          "record batch at index "
              + index
              + " announces "
              + payloadLength
              + " payload bytes, readable "
              + (available - RecordBatchHeader.SIZE));
    }
  }
}
