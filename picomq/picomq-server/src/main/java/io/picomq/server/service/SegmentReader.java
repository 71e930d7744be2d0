package io.picomq.server.service;

import io.picomq.protocol.Envelope;
import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.api.Stream;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.StreamRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a stream's records through its entry's segments: a plain stream's from its own engine
 * stream, a fork's below its fork point from its sources' (see {@link Registration} for how seqs
 * map to offsets). Blocks on the engine, each fetch bounded by the request timeout ({@link
 * ServiceFailures}).
 *
 * <p>Threading: stateless past construction; any thread that may block (virtual threads), never
 * under a lock.
 */
final class SegmentReader {
  /** The most one fetch asks the engine for; larger reads take several fetches. */
  static final int MAX_FETCH_BYTES = 4 << 20;

  /** The least one fetch asks for, so a reader with a small cap still reads whole blocks. */
  private static final int MIN_FETCH_BYTES = 64 << 10;

  private final EngineStreams streams;
  private final ServiceFailures failures;

  SegmentReader(EngineStreams streams, ServiceFailures failures) {
    this.streams = streams;
    this.failures = failures;
  }

  /**
   * Records {@code [fromSeq, tailSeq)} through the entry's segments: at least one when any exists,
   * then as many as fit both caps. The caller checked the range against the stream's start and
   * tail.
   */
  List<StreamRecord> read(
      Registration registration, long fromSeq, long tailSeq, int maxRecords, long maxBytes) {
    List<StreamRecord> records = new ArrayList<>();
    long bytes = 0;
    long seq = fromSeq;
    while (seq < tailSeq && records.size() < maxRecords) {
      Segment segment = segmentOf(registration, seq);
      long segmentEnd = Math.min(segment.seqEnd(), tailSeq);
      Stream stream = streams.open(segment.streamId());
      long startOffset = segment.offsetOf(seq);
      long endOffset = segment.offsetOf(segmentEnd);
      int fetchBytes = (int) Math.max(MIN_FETCH_BYTES, Math.min(maxBytes, MAX_FETCH_BYTES));
      long before = seq;
      try (FetchResult result =
          failures.await(stream.fetch(startOffset, endOffset, fetchBytes, ReadOptions.DEFAULT))) {
        batches:
        for (FetchedBatch batch : result.batches()) {
          List<Envelope> envelopes = RecordBatchPayload.decode(batch.payload(), batch.count());
          for (int i = 0; i < envelopes.size(); i++) {
            long offset = batch.baseOffset() + i;
            if (offset < startOffset) {
              continue;
            }
            if (offset >= endOffset || records.size() >= maxRecords) {
              break batches;
            }
            Envelope envelope = envelopes.get(i);
            if (!records.isEmpty() && bytes + envelope.body().length > maxBytes) {
              return records;
            }
            records.add(
                new StreamRecord(
                    seq, envelope.timestampMillis(), envelope.headers(), envelope.body()));
            bytes += envelope.body().length;
            seq++;
          }
        }
      }
      if (seq == before) {
        throw new IllegalStateException(
            "engine stream " + segment.streamId() + " returned nothing at offset " + startOffset);
      }
    }
    return records;
  }

  /**
   * The record at {@code seq}, which exists. The smallest byte cap: the first record comes whatever
   * its size, and the fetch asks for no more than one block.
   */
  StreamRecord record(Registration registration, long seq) {
    return read(registration, seq, seq + 1, 1, 1).getFirst();
  }

  /** The segment holding {@code seq}: the last one starting at or below it. */
  static Segment segmentOf(Registration registration, long seq) {
    Segment found = registration.segments().getFirst();
    for (Segment segment : registration.segments()) {
      if (segment.seqStart() <= seq) {
        found = segment;
      }
    }
    return found;
  }
}
