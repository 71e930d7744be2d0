package io.picomq.s3stream.walobject;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.WalRecord;
import io.picomq.s3stream.codec.WalRecordCodec;
import io.picomq.s3stream.codec.WalRecordHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Encodes and decodes whole WAL objects (specification: {@code
 * s3stream/specification/wal-object.md}).
 *
 * <p>A WAL object is a {@link WalObjectHeader} followed by framed WAL records back to back. The
 * first record's WAL offset is the header's {@code startOffset}, and each next record starts where
 * the previous one ended, so a record's WAL offset is {@code startOffset + (its byte position -
 * header size)}. Offsets do not continue across objects: the next object starts at this one's
 * {@linkplain #endOffset end offset}, the next multiple of {@link #ALIGNMENT_BYTES} (worked example
 * in the specification).
 */
public final class WalObjectCodec {

  /**
   * Each object's end offset is rounded up to a multiple of this, as the upstream does (its vectors
   * pin 64 MiB: {@code 0-67108864}, then {@code 67108864-134217728}).
   */
  public static final long ALIGNMENT_BYTES = 64L * 1024 * 1024;

  /** Bytes of the largest header version; enough to read any header with one ranged GET. */
  public static final int MAX_HEADER_SIZE = WalObjectHeader.V1.SIZE;

  private WalObjectCodec() {}

  /** The end offset of an object starting at {@code startOffset} with {@code bodyLength} bytes. */
  public static long endOffset(long startOffset, long bodyLength) {
    long end = startOffset + bodyLength;
    return Math.ceilDiv(end, ALIGNMENT_BYTES) * ALIGNMENT_BYTES;
  }

  /** Appends the bytes of {@code header} to {@code out}; releases nothing. */
  public static void writeHeader(WalObjectHeader header, ByteBuf out) {
    out.writeInt(header.magic())
        .writeLong(header.startOffset())
        .writeLong(header.bodyLength())
        .writeLong(header.stickyRecordLength())
        .writeInt(header.nodeId())
        .writeLong(header.nodeEpoch());
    if (header instanceof WalObjectHeader.V1 v1) {
      out.writeLong(v1.trimOffset());
    }
  }

  /**
   * Reads the header at absolute {@code index} of {@code buf}, either version; moves no index.
   *
   * @throws CorruptDataException {@code TRUNCATED} if the bytes end before the header does, {@code
   *     UNKNOWN_MAGIC} for another magic, {@code BAD_LENGTH} for a negative body length
   */
  public static WalObjectHeader readHeader(ByteBuf buf, int index) {
    long available = (long) buf.writerIndex() - index;
    if (index < buf.readerIndex()) {
      throw new IllegalArgumentException(
          "index " + index + " is before the reader index " + buf.readerIndex());
    }
    if (available < 4) {
      throw truncatedHeader(index, available, 4);
    }
    int magic = buf.getInt(index);
    int size =
        switch (magic) {
          case WalObjectHeader.V0.MAGIC -> WalObjectHeader.V0.SIZE;
          case WalObjectHeader.V1.MAGIC -> WalObjectHeader.V1.SIZE;
          default ->
              throw new CorruptDataException(
                  CorruptDataException.Reason.UNKNOWN_MAGIC,
                  String.format(Locale.ROOT, "WAL object magic 0x%08x at index %d", magic, index));
        };
    if (available < size) {
      throw truncatedHeader(index, available, size);
    }
    long startOffset = buf.getLong(index + 4);
    long bodyLength = buf.getLong(index + 12);
    if (bodyLength < 0) {
      throw new CorruptDataException(
          CorruptDataException.Reason.BAD_LENGTH,
          "WAL object at index " + index + " has body length " + bodyLength);
    }
    long sticky = buf.getLong(index + 20);
    int nodeId = buf.getInt(index + 28);
    long nodeEpoch = buf.getLong(index + 32);
    return magic == WalObjectHeader.V0.MAGIC
        ? new WalObjectHeader.V0(startOffset, bodyLength, sticky, nodeId, nodeEpoch)
        : new WalObjectHeader.V1(
            startOffset, bodyLength, sticky, nodeId, nodeEpoch, buf.getLong(index + 40));
  }

  /**
   * Builds a v1 WAL object holding one data record per body, framed in the given order (the
   * upstream sorts them by stream id, then base offset, before calling this; the order is the
   * writer's choice and readers must not depend on it).
   *
   * @param bodies encoded record batches; their readable bytes are framed, their indexes do not
   *     move, and they stay owned by the caller (the result holds a reference to each, so their
   *     bytes must not change while it lives; later index moves do not affect it)
   * @param allocator allocates the headers
   * @return the object, whose {@link EncodedWalObject#bytes()} the caller releases
   * @throws IllegalArgumentException if {@code bodies} is empty: an empty object would end recovery
   *     (use a {@link TrimMarker} to persist a trim with nothing else to write)
   */
  public static EncodedWalObject encode(
      long startOffset,
      int nodeId,
      long nodeEpoch,
      long trimOffset,
      List<ByteBuf> bodies,
      ByteBufAllocator allocator) {
    Objects.requireNonNull(bodies, "bodies");
    if (bodies.isEmpty()) {
      throw new IllegalArgumentException("a WAL object needs at least one record");
    }
    if (startOffset < 0) {
      throw new IllegalArgumentException("startOffset must be >= 0: " + startOffset);
    }
    long bodyLength = 0;
    for (ByteBuf body : bodies) {
      bodyLength += WalRecordHeader.SIZE + body.readableBytes();
    }
    WalObjectHeader.V1 header =
        new WalObjectHeader.V1(startOffset, bodyLength, 0, nodeId, nodeEpoch, trimOffset);
    // The object header and every record header share one buffer, and bodies are added with a
    // reference rather than a slice: per record that saves two small allocations (a 24-byte buffer
    // and a derived one), which dominated the cost of framing small records.
    int headerBytes = WalObjectHeader.V1.SIZE + bodies.size() * WalRecordHeader.SIZE;
    ByteBuf headers = allocator.buffer(headerBytes, headerBytes);
    CompositeByteBuf records = allocator.compositeBuffer(bodies.size() * 2 + 1);
    try {
      writeHeader(header, headers);
      records.addComponent(true, headers.retainedSlice(0, WalObjectHeader.V1.SIZE));
      List<RecordPosition> positions = new ArrayList<>(bodies.size());
      long offset = startOffset;
      for (ByteBuf body : bodies) {
        int at = headers.writerIndex();
        WalRecordCodec.writeDataHeader(offset, body, headers);
        // A plain slice shares the reference taken here; the composite releases it.
        headers.retain();
        records.addComponent(true, headers.slice(at, WalRecordHeader.SIZE));
        records.addComponent(true, body.retain());
        int size = WalRecordHeader.SIZE + body.readableBytes();
        positions.add(new RecordPosition(offset, size));
        offset += size;
      }
      return new EncodedWalObject(header, records, positions, endOffset(startOffset, bodyLength));
    } catch (RuntimeException e) {
      records.release();
      throw e;
    } finally {
      headers.release();
    }
  }

  /**
   * Reads every record of the WAL object in {@code object}'s readable bytes, checking each record's
   * CRCs and that its offset is where the header says the record must be. Reading stops at the
   * first record that fails, which {@link WalObjectContents#stoppedBy()} reports; padding records
   * are skipped. Bytes beyond the header's body length are not read. Moves no index of {@code
   * object} and does not release it.
   *
   * @throws CorruptDataException if the header itself is unreadable: the object is not a WAL object
   */
  public static WalObjectContents decode(ByteBuf object) {
    int headerIndex = object.readerIndex();
    WalObjectHeader header = readHeader(object, headerIndex);
    int bodyIndex = headerIndex + header.size();
    int readable = object.writerIndex() - bodyIndex;
    ByteBuf body = object.slice(bodyIndex, (int) Math.min(readable, header.bodyLength()));
    List<WalRecord.Data> records = new ArrayList<>();
    Optional<CorruptDataException> stoppedBy = Optional.empty();
    try {
      while (body.readerIndex() < header.bodyLength()) {
        long expectedOffset = header.startOffset() + body.readerIndex();
        WalRecord record = WalRecordCodec.decode(body);
        if (record.header().recordOffset() != expectedOffset) {
          if (record instanceof WalRecord.Data data) {
            data.body().release();
          }
          throw new CorruptDataException(
              CorruptDataException.Reason.INCONSISTENT,
              "WAL record at offset "
                  + expectedOffset
                  + " claims offset "
                  + record.header().recordOffset());
        }
        if (record instanceof WalRecord.Data data) {
          records.add(data);
        }
      }
    } catch (CorruptDataException e) {
      stoppedBy = Optional.of(e);
    }
    return new WalObjectContents(header, records, stoppedBy);
  }

  private static CorruptDataException truncatedHeader(int index, long available, int needed) {
    return new CorruptDataException(
        CorruptDataException.Reason.TRUNCATED,
        "WAL object header at index "
            + index
            + " has "
            + Math.max(0, available)
            + " of "
            + needed
            + " bytes");
  }
}
