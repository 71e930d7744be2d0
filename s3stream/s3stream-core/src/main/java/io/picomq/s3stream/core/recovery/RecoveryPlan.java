package io.picomq.s3stream.core.recovery;

import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.codec.RecordBatchHeader;
import io.picomq.s3stream.core.logcache.CachedBatch;
import io.picomq.s3stream.core.upload.StreamData;
import io.picomq.s3stream.wal.RecoveredRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which recovered WAL records to upload, and in which batches.
 *
 * <p>The rule, per stream the earlier processes had open (with its epoch {@code e} and committed
 * end {@code c} from the metadata plane), over its records in WAL order:
 *
 * <ul>
 *   <li>a record of another epoch, or of a stream not opening, is dropped (it was committed before
 *       its stream closed, or belongs to a writer that was fenced);
 *   <li>a record wholly below {@code c} is dropped: it is committed already;
 *   <li>a record starting exactly at {@code c} is kept and {@code c} moves to its end;
 *   <li>anything else (a record that starts beyond {@code c}, or straddles it) ends the stream's
 *       recovery: only the contiguous tail above the committed end is kept, everything after a gap
 *       is dropped.
 * </ul>
 *
 * <p>Example, stream 7 opening at epoch 2 with committed end 10; records in WAL order [7: 5..10),
 * [7: 10..12), [9: 0..3), [7: 12..15), [7: 18..20): the first is dropped (committed), the next two
 * of stream 7 are kept, stream 9 is not opening so its record is dropped, [18, 20) follows a gap
 * and is dropped. Upload: stream 7 [10, 15).
 *
 * <p>The kept records are cut, in WAL order, into batches of about {@code batchBytes} each, so
 * recovery never holds more than one batch in flight; within a batch, each stream's records are
 * contiguous and batches continue each other per stream.
 *
 * <p>Ownership: the plan takes over the bodies of the kept records and releases the dropped ones.
 */
public final class RecoveryPlan {

  private final List<List<StreamData>> batches;
  private final int keptRecords;
  private final int droppedRecords;
  private final long keptBytes;

  private RecoveryPlan(
      List<List<StreamData>> batches, int keptRecords, int droppedRecords, long keptBytes) {
    this.batches = batches;
    this.keptRecords = keptRecords;
    this.droppedRecords = droppedRecords;
    this.keptBytes = keptBytes;
  }

  /**
   * @param records the WAL's records in offset order; the plan takes over every body
   * @param opening the streams earlier processes had open
   * @param batchBytes cut a batch once it holds this many bytes
   */
  public static RecoveryPlan of(
      List<RecoveredRecord> records, List<StreamMetadata> opening, long batchBytes) {
    Map<Long, StreamMetadata> streams = new HashMap<>();
    Map<Long, Long> expected = new HashMap<>();
    for (StreamMetadata s : opening) {
      streams.put(s.streamId(), s);
      expected.put(s.streamId(), s.endOffset());
    }
    Set<Long> broken = new HashSet<>();
    List<List<StreamData>> batches = new ArrayList<>();
    Map<Long, List<CachedBatch>> current = new LinkedHashMap<>();
    long currentBytes = 0;
    int kept = 0;
    int dropped = 0;
    long keptBytes = 0;
    for (RecoveredRecord record : records) {
      RecordBatchHeader header;
      try {
        header = RecordBatchCodec.readHeader(record.body(), record.body().readerIndex());
      } catch (CorruptDataException e) {
        header = null;
      }
      StreamMetadata stream = header == null ? null : streams.get(header.streamId());
      boolean keep =
          stream != null
              && header.epoch() == stream.epoch()
              && header.count() > 0
              && !broken.contains(header.streamId())
              && record.body().readableBytes() == header.encodedSize();
      if (keep) {
        long next = expected.get(header.streamId());
        if (header.lastOffset() <= next) {
          keep = false; // committed already
        } else if (header.baseOffset() != next) {
          broken.add(header.streamId());
          keep = false;
        }
      }
      if (!keep) {
        record.body().release();
        dropped++;
        continue;
      }
      expected.put(header.streamId(), header.lastOffset());
      CachedBatch batch = new CachedBatch(header.baseOffset(), header.count(), record.body());
      current.computeIfAbsent(header.streamId(), id -> new ArrayList<>()).add(batch);
      currentBytes += batch.sizeBytes();
      keptBytes += batch.sizeBytes();
      kept++;
      if (currentBytes >= batchBytes) {
        batches.add(toBatch(current, streams));
        current = new LinkedHashMap<>();
        currentBytes = 0;
      }
    }
    if (!current.isEmpty()) {
      batches.add(toBatch(current, streams));
    }
    return new RecoveryPlan(List.copyOf(batches), kept, dropped, keptBytes);
  }

  private static List<StreamData> toBatch(
      Map<Long, List<CachedBatch>> byStream, Map<Long, StreamMetadata> streams) {
    List<StreamData> batch = new ArrayList<>();
    new TreeMap<>(byStream)
        .forEach((id, list) -> batch.add(new StreamData(id, streams.get(id).epoch(), list)));
    return List.copyOf(batch);
  }

  /** The upload batches, in order; each by ascending stream id. */
  public List<List<StreamData>> batches() {
    return batches;
  }

  public int keptRecords() {
    return keptRecords;
  }

  public int droppedRecords() {
    return droppedRecords;
  }

  public long keptBytes() {
    return keptBytes;
  }

  /**
   * Releases the kept records of batches from {@code firstBatch} on (when recovery stops early).
   */
  public void releaseFrom(int firstBatch) {
    for (int i = firstBatch; i < batches.size(); i++) {
      batches.get(i).forEach(StreamData::release);
    }
  }
}
