package io.picomq.s3stream.core.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.api.StreamMetadata.StreamState;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.core.upload.StreamData;
import io.picomq.s3stream.wal.RecoveredRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecoveryPlanTest {

  private long walOffset;
  private final List<ByteBuf> bodies = new ArrayList<>();

  private RecoveredRecord record(long stream, long epoch, long base, int count) {
    ByteBuf payload = Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
    ByteBuf body =
        RecordBatchCodec.encode(
            new RecordBatch(stream, epoch, base, count, payload), ByteBufAllocator.DEFAULT);
    bodies.add(body);
    return new RecoveredRecord(walOffset++, body);
  }

  private static StreamMetadata opening(long stream, long epoch, long end) {
    return new StreamMetadata(stream, epoch, 0, end, StreamState.OPENED, 1);
  }

  private static List<String> describe(List<StreamData> batch) {
    return batch.stream()
        .map(s -> s.streamId() + ":" + s.startOffset() + ".." + s.endOffset() + "@" + s.epoch())
        .toList();
  }

  @Test
  void keepsOnlyTheContiguousTailAboveTheCommittedEnd() {
    // The worked example of the class comment.
    List<RecoveredRecord> records =
        List.of(
            record(7, 2, 5, 5),
            record(7, 2, 10, 2),
            record(9, 0, 0, 3),
            record(7, 2, 12, 3),
            record(7, 2, 18, 2));
    RecoveryPlan plan = RecoveryPlan.of(records, List.of(opening(7, 2, 10)), 1 << 20);
    assertThat(plan.batches()).hasSize(1);
    assertThat(describe(plan.batches().get(0))).containsExactly("7:10..15@2");
    assertThat(plan.keptRecords()).isEqualTo(2);
    assertThat(plan.droppedRecords()).isEqualTo(3);
    plan.releaseFrom(0);
    assertThat(bodies).allSatisfy(b -> assertThat(b.refCnt()).isZero());
  }

  @Test
  void dropsRecordsOfAnotherEpoch() {
    List<RecoveredRecord> records = List.of(record(1, 3, 0, 1), record(1, 4, 0, 1));
    RecoveryPlan plan = RecoveryPlan.of(records, List.of(opening(1, 4, 0)), 1 << 20);
    assertThat(describe(plan.batches().get(0))).containsExactly("1:0..1@4");
    plan.releaseFrom(0);
  }

  @Test
  void aRecordStraddlingTheCommittedEndEndsTheStreamsRecovery() {
    List<RecoveredRecord> records = List.of(record(1, 0, 3, 4), record(1, 0, 7, 1));
    RecoveryPlan plan = RecoveryPlan.of(records, List.of(opening(1, 0, 5)), 1 << 20);
    assertThat(plan.batches()).isEmpty();
    assertThat(plan.droppedRecords()).isEqualTo(2);
  }

  @Test
  void cutsBatchesInWalOrderAndEachStreamContinuesAcrossThem() {
    List<RecoveredRecord> records = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      records.add(record(2, 0, i, 1));
      records.add(record(1, 0, 100 + i, 1));
    }
    // Each encoded record is 36 bytes: a batch closes at the fourth record.
    RecoveryPlan plan =
        RecoveryPlan.of(records, List.of(opening(1, 0, 100), opening(2, 0, 0)), 4 * 36);
    assertThat(plan.batches()).hasSize(3);
    assertThat(describe(plan.batches().get(0))).containsExactly("1:100..102@0", "2:0..2@0");
    assertThat(describe(plan.batches().get(1))).containsExactly("1:102..104@0", "2:2..4@0");
    assertThat(describe(plan.batches().get(2))).containsExactly("1:104..106@0", "2:4..6@0");
    plan.releaseFrom(0);
    assertThat(bodies).allSatisfy(b -> assertThat(b.refCnt()).isZero());
  }

  @Test
  void recordsOfStreamsNotOpeningAreDroppedAndReleased() {
    List<RecoveredRecord> records = List.of(record(5, 0, 0, 1));
    RecoveryPlan plan = RecoveryPlan.of(records, List.of(), 1 << 20);
    assertThat(plan.batches()).isEmpty();
    assertThat(bodies.get(0).refCnt()).isZero();
  }
}
