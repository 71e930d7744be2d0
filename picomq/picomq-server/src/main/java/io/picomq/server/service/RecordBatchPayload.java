package io.picomq.server.service;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.protocol.DecodeException;
import io.picomq.protocol.Envelope;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ProducerTag;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How the service stores records in the engine: one service append of N records is one engine
 * append of count N whose payload is N length-prefixed envelopes ({@code (length u32, envelope)*},
 * big-endian; see {@link Envelope} for the envelope), optionally followed by a stamp trailer. All
 * records of one append share the timestamp the owning node assigned. Storing envelopes, not bare
 * bodies, lets either protocol read a record back with its timestamp and headers.
 *
 * <p>The trailer ({@link BatchStamp}) is present only when the append set a producer seq, a writer
 * seq or the closed flag: {@code marker u8 = 0x53 | flags u8 (1 producer, 2 writer seq, 4 close) |
 * [idLen u32, id, epoch i64, seq i64] | [writerSeqLen u32, writerSeq]} (strings UTF-8). Readers of
 * records never see it: they decode exactly {@code count} envelopes. Only loading a stream reads it
 * (see {@link EntryWriter#replayStamps}).
 */
final class RecordBatchPayload {
  private static final int STAMP_MARKER = 0x53;
  private static final int HAS_PRODUCER = 1;
  private static final int HAS_WRITER_SEQ = 2;
  private static final int CLOSES = 4;

  private RecordBatchPayload() {}

  /** Encodes records into a new buffer, without a stamp; the caller releases it. */
  static ByteBuf encode(List<NewRecord> records, long timestampMillis, ByteBufAllocator allocator) {
    return encode(
        records,
        timestampMillis,
        new BatchStamp(Optional.empty(), Optional.empty(), false),
        allocator);
  }

  /** Encodes records and, unless it is empty, their stamp; the caller releases the buffer. */
  static ByteBuf encode(
      List<NewRecord> records, long timestampMillis, BatchStamp stamp, ByteBufAllocator allocator) {
    // Each body is copied once, from the request straight into the pooled buffer the engine keeps
    // a reference to (the append path's second and last copy; see the engine docs).
    List<byte[]> heads = new ArrayList<>(records.size());
    int size = 0;
    for (NewRecord record : records) {
      byte[] head = Envelope.of(timestampMillis, record.headers(), record.body()).head();
      heads.add(head);
      size += 4 + head.length + record.body().length;
    }
    byte[] trailer = stamp.isEmpty() ? new byte[0] : trailer(stamp);
    size += trailer.length;
    ByteBuf payload = allocator.buffer(size, size);
    for (int i = 0; i < heads.size(); i++) {
      byte[] head = heads.get(i);
      byte[] body = records.get(i).body();
      payload.writeInt(head.length + body.length);
      payload.writeBytes(head);
      payload.writeBytes(body);
    }
    payload.writeBytes(trailer);
    return payload;
  }

  private static byte[] trailer(BatchStamp stamp) {
    byte[] id = stamp.producer().map(p -> p.id().getBytes(StandardCharsets.UTF_8)).orElse(null);
    byte[] writerSeq = stamp.writerSeq().map(w -> w.getBytes(StandardCharsets.UTF_8)).orElse(null);
    int size =
        2 + (id == null ? 0 : 4 + id.length + 16) + (writerSeq == null ? 0 : 4 + writerSeq.length);
    ByteBuffer out = ByteBuffer.allocate(size);
    int flags =
        (id == null ? 0 : HAS_PRODUCER)
            | (writerSeq == null ? 0 : HAS_WRITER_SEQ)
            | (stamp.close() ? CLOSES : 0);
    out.put((byte) STAMP_MARKER).put((byte) flags);
    if (id != null) {
      ProducerTag producer = stamp.producer().get();
      out.putInt(id.length).put(id).putLong(producer.epoch()).putLong(producer.seq());
    }
    if (writerSeq != null) {
      out.putInt(writerSeq.length).put(writerSeq);
    }
    return out.array();
  }

  /**
   * Decodes the {@code count} envelopes of one batch. Does not release {@code payload} (its owner
   * does) and does not move its reader index.
   *
   * @throws IllegalStateException if the payload is not {@code count} well-formed envelopes: stored
   *     data is corrupt, which is a bug or broken storage
   */
  static List<Envelope> decode(ByteBuf payload, int count) {
    List<Envelope> envelopes = new ArrayList<>(count);
    int index = payload.readerIndex();
    int end = payload.writerIndex();
    for (int i = 0; i < count; i++) {
      int length = envelopeLength(payload, index, end, i, count);
      index += 4;
      byte[] bytes = new byte[length];
      payload.getBytes(index, bytes);
      index += length;
      try {
        envelopes.add(Envelope.decode(bytes));
      } catch (DecodeException e) {
        throw new IllegalStateException("undecodable record envelope: " + e.getMessage(), e);
      }
    }
    return envelopes;
  }

  /**
   * The stamp stored after the {@code count} envelopes of one batch, or an empty one when the batch
   * has no trailer. Does not release {@code payload} or move its reader index.
   *
   * @throws IllegalStateException if the payload or its trailer is malformed
   */
  static BatchStamp stamp(ByteBuf payload, int count) {
    int index = payload.readerIndex();
    int end = payload.writerIndex();
    for (int i = 0; i < count; i++) {
      index += 4 + envelopeLength(payload, index, end, i, count);
    }
    if (index == end) {
      return new BatchStamp(Optional.empty(), Optional.empty(), false);
    }
    ByteBuf in = payload.slice(index, end - index);
    try {
      if (in.readUnsignedByte() != STAMP_MARKER) {
        throw new IllegalStateException("unknown bytes after the records of a batch");
      }
      int flags = in.readUnsignedByte();
      Optional<ProducerTag> producer = Optional.empty();
      if ((flags & HAS_PRODUCER) != 0) {
        String id = string(in);
        producer = Optional.of(new ProducerTag(id, in.readLong(), in.readLong()));
      }
      Optional<String> writerSeq =
          (flags & HAS_WRITER_SEQ) != 0 ? Optional.of(string(in)) : Optional.empty();
      if (in.isReadable()) {
        throw new IllegalStateException("batch stamp has " + in.readableBytes() + " extra bytes");
      }
      return new BatchStamp(producer, writerSeq, (flags & CLOSES) != 0);
    } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
      throw new IllegalStateException("damaged batch stamp: " + e.getMessage(), e);
    }
  }

  private static String string(ByteBuf in) {
    int length = in.readInt();
    if (length < 0 || length > in.readableBytes()) {
      throw new IllegalStateException("batch stamp string claims " + length + " bytes");
    }
    return in.readCharSequence(length, StandardCharsets.UTF_8).toString();
  }

  private static int envelopeLength(ByteBuf payload, int index, int end, int i, int count) {
    if (end - index < 4) {
      throw new IllegalStateException("record batch truncated at record " + i + " of " + count);
    }
    int length = payload.getInt(index);
    if (length < 0 || length > end - index - 4) {
      throw new IllegalStateException("record " + i + " claims " + length + " bytes");
    }
    return length;
  }
}
