package io.picomq.cli.bench;

import java.util.function.Consumer;

/**
 * Cuts what a reader receives back into fixed-size benchmark records. Under the Pico protocol a
 * read returns one body per record; under Durable Streams a byte stream returns chunks of
 * concatenated appends whose edges need not fall between records. Every record has the same size,
 * so keeping the tail of one chunk until the next one arrives recovers the records either way.
 * Owned by one reader thread.
 */
final class RecordFramer {
  private final int recordSize;
  private final byte[] partial;
  private int partialLength;

  RecordFramer(int recordSize) {
    if (recordSize < BenchRecord.HEADER_BYTES) {
      throw new IllegalArgumentException("record size " + recordSize);
    }
    this.recordSize = recordSize;
    this.partial = new byte[recordSize];
  }

  /** Feeds one received body; calls {@code sink} for each record it completes. */
  void feed(byte[] chunk, Consumer<BenchRecord> sink) {
    int offset = 0;
    if (partialLength > 0) {
      int n = Math.min(recordSize - partialLength, chunk.length);
      System.arraycopy(chunk, 0, partial, partialLength, n);
      partialLength += n;
      offset = n;
      if (partialLength < recordSize) {
        return;
      }
      sink.accept(BenchRecord.decode(partial, 0));
      partialLength = 0;
    }
    while (chunk.length - offset >= recordSize) {
      sink.accept(BenchRecord.decode(chunk, offset));
      offset += recordSize;
    }
    int rest = chunk.length - offset;
    System.arraycopy(chunk, offset, partial, 0, rest);
    partialLength = rest;
  }

  /** Bytes held back waiting for the rest of a record. */
  int pendingBytes() {
    return partialLength;
  }
}
