package io.picomq.server.service;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.protocol.DecodeException;
import io.picomq.protocol.Envelope;
import io.picomq.server.stream.NewRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * How the service stores records in the engine: one service append of N records is one engine
 * append of count N whose payload is N length-prefixed envelopes ({@code (length u32, envelope)*},
 * big-endian; see {@link Envelope} for the envelope). All records of one append share the timestamp
 * the owning node assigned. Storing envelopes, not bare bodies, lets either protocol read a record
 * back with its timestamp and headers.
 */
final class RecordBatchPayload {
  private RecordBatchPayload() {}

  /** Encodes records into a new buffer; the caller releases it. */
  static ByteBuf encode(List<NewRecord> records, long timestampMillis, ByteBufAllocator allocator) {
    List<byte[]> envelopes = new ArrayList<>(records.size());
    int size = 0;
    for (NewRecord record : records) {
      byte[] envelope = Envelope.of(timestampMillis, record.headers(), record.body()).encode();
      envelopes.add(envelope);
      size += 4 + envelope.length;
    }
    ByteBuf payload = allocator.heapBuffer(size, size);
    for (byte[] envelope : envelopes) {
      payload.writeInt(envelope.length);
      payload.writeBytes(envelope);
    }
    return payload;
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
      if (end - index < 4) {
        throw new IllegalStateException("record batch truncated at record " + i + " of " + count);
      }
      int length = payload.getInt(index);
      index += 4;
      if (length < 0 || length > end - index) {
        throw new IllegalStateException("record " + i + " claims " + length + " bytes");
      }
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
}
