package io.picomq.s3stream.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.picomq.s3stream.codec.CorruptDataException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ObjectWriterTest {

  @BeforeAll
  static void paranoidLeakDetection() {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  @Test
  void layoutFollowsTheSpecification() {
    BatchValue a = BatchValue.of(7, 100, 2, 5);
    BatchValue b = BatchValue.of(7, 102, 1, 3);
    byte[] bytes = TestObjects.bytes(TestObjects.writer(1 << 20, List.of(a, b)).finish());

    int dataLength = (33 + 5) + (33 + 3);
    int blockSize = 10 + dataLength;
    assertThat(bytes).hasSize(blockSize + 36 + 48);
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    assertThat(buf.get(0)).isEqualTo((byte) 0x5A);
    assertThat(buf.get(1)).isEqualTo((byte) 0x02);
    assertThat(buf.getInt(2)).as("record count").isEqualTo(2);
    assertThat(buf.getInt(6)).as("data length").isEqualTo(dataLength);
    assertThat(buf.get(10)).as("first batch magic").isEqualTo((byte) 0x22);

    int index = blockSize;
    assertThat(buf.getLong(index)).as("stream id").isEqualTo(7);
    assertThat(buf.getLong(index + 8)).as("start offset").isEqualTo(100);
    assertThat(buf.getInt(index + 16)).as("end offset delta").isEqualTo(3);
    assertThat(buf.getInt(index + 20)).as("record count").isEqualTo(2);
    assertThat(buf.getLong(index + 24)).as("start position").isZero();
    assertThat(buf.getInt(index + 32)).as("block size").isEqualTo(blockSize);

    int footer = index + 36;
    assertThat(buf.getLong(footer)).as("index start").isEqualTo(blockSize);
    assertThat(buf.getInt(footer + 8)).as("index length").isEqualTo(36);
    for (int i = 12; i < 40; i++) {
      assertThat(buf.get(footer + i)).as("reserved byte %d", i).isZero();
    }
    assertThat(buf.getLong(footer + 40)).isEqualTo(0x88E241B785F4CFF7L);
  }

  @Test
  void aBlockIsCutByTheBatchWhosePayloadReachesTheThreshold() {
    EncodedObject object =
        TestObjects.writer(
                100,
                List.of(
                    BatchValue.of(1, 0, 1, 60),
                    BatchValue.of(1, 1, 1, 40),
                    BatchValue.of(1, 2, 1, 99),
                    BatchValue.of(1, 3, 1, 10)))
            .finish();
    object.bytes().release();

    assertThat(object.entries())
        .extracting(IndexEntry::startOffset, IndexEntry::recordCount)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0L, 2), org.assertj.core.groups.Tuple.tuple(2L, 2));
  }

  @Test
  void theThresholdCounterCarriesOverAStreamChangeAsUpstreamDoes() {
    EncodedObject object =
        TestObjects.writer(
                300,
                List.of(
                    BatchValue.of(1, 0, 1, 200),
                    BatchValue.of(2, 0, 1, 150),
                    BatchValue.of(2, 1, 1, 150)))
            .finish();
    object.bytes().release();

    assertThat(object.entries())
        .extracting(IndexEntry::streamId, IndexEntry::startOffset, IndexEntry::recordCount)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1L, 0L, 1),
            org.assertj.core.groups.Tuple.tuple(2L, 0L, 1),
            org.assertj.core.groups.Tuple.tuple(2L, 1L, 1));
    assertThat(object.streamRanges())
        .extracting(StreamRange::streamId, StreamRange::startOffset, StreamRange::endOffset)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1L, 0L, 1L),
            org.assertj.core.groups.Tuple.tuple(2L, 0L, 2L));
  }

  @Test
  void aGapStartsANewBlockAndANewRange() {
    EncodedObject object =
        TestObjects.writer(
                1 << 20,
                List.of(
                    BatchValue.of(4, 0, 5, 10),
                    BatchValue.of(4, 5, 5, 10),
                    BatchValue.of(4, 20, 5, 10)))
            .finish();
    object.bytes().release();

    assertThat(object.entries())
        .extracting(IndexEntry::startOffset, IndexEntry::endOffset)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0L, 10L),
            org.assertj.core.groups.Tuple.tuple(20L, 25L));
    IndexEntry first = object.entries().get(0);
    IndexEntry second = object.entries().get(1);
    assertThat(object.streamRanges())
        .containsExactly(
            new StreamRange(4, 0, 10, first.blockSize()),
            new StreamRange(4, 20, 25, second.blockSize()));
  }

  @Test
  void rangesSpanAStreamsBlocksAndAddUpTheirSizes() {
    List<BatchValue> batches = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      batches.add(BatchValue.of(9, i * 3, 3, 50));
    }
    batches.add(BatchValue.of(11, 0, 1, 50));
    EncodedObject object = TestObjects.writer(120, batches).finish();
    long sizeBytes = object.sizeBytes();
    object.bytes().release();

    assertThat(object.entries()).hasSizeGreaterThan(2);
    long stream9Bytes =
        object.entries().stream()
            .filter(e -> e.streamId() == 9)
            .mapToLong(IndexEntry::blockSize)
            .sum();
    assertThat(object.streamRanges())
        .containsExactly(
            new StreamRange(9, 0, 30, stream9Bytes), new StreamRange(11, 0, 1, 10 + 33 + 50));
    assertThat(sizeBytes)
        .isEqualTo(
            object.entries().stream().mapToLong(IndexEntry::blockSize).sum()
                + 36L * object.entries().size()
                + 48);
  }

  @Test
  void sizeBytesPredictsTheFinishedSize() {
    ObjectWriter writer =
        TestObjects.writer(
            64,
            List.of(
                BatchValue.of(1, 0, 1, 50), BatchValue.of(1, 1, 1, 50), BatchValue.of(2, 0, 1, 7)));
    long predicted = writer.sizeBytes();
    EncodedObject object = writer.finish();
    assertThat(object.sizeBytes()).isEqualTo(predicted);
    object.bytes().release();
  }

  @Test
  void rejectsDecreasingStreamIdsAndReleasesTheBatch() {
    ObjectWriter writer = TestObjects.writer(1 << 20, List.of(BatchValue.of(5, 0, 1, 4)));
    ByteBuf rejected = BatchValue.of(4, 0, 1, 4).encode();

    assertThatThrownBy(() -> writer.append(rejected))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stream 4 after 5");
    assertThat(rejected.refCnt()).isZero();
    writer.close();
  }

  @Test
  void rejectsOverlappingOrDecreasingOffsetsWithinAStream() {
    ObjectWriter writer = TestObjects.writer(1 << 20, List.of(BatchValue.of(5, 10, 5, 4)));

    assertThatThrownBy(() -> writer.append(BatchValue.of(5, 14, 1, 4).encode()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overlaps");
    assertThatThrownBy(() -> writer.append(BatchValue.of(5, 0, 1, 4).encode()))
        .isInstanceOf(IllegalArgumentException.class);
    // A rejection leaves the writer as it was: the next contiguous batch is accepted.
    writer.append(BatchValue.of(5, 15, 1, 4).encode());
    EncodedObject object = writer.finish();
    object.bytes().release();
    assertThat(object.streamRanges()).extracting(StreamRange::endOffset).containsExactly(16L);
  }

  @Test
  void rejectsBytesThatAreNotExactlyOneBatch() {
    ObjectWriter writer = new ObjectWriter(1 << 20, UnpooledByteBufAllocator.DEFAULT);
    ByteBuf garbage = Unpooled.wrappedBuffer(new byte[40]);
    ByteBuf two =
        Unpooled.wrappedBuffer(
            BatchValue.of(1, 0, 1, 3).encode(), BatchValue.of(1, 1, 1, 3).encode());

    assertThatThrownBy(() -> writer.append(garbage)).isInstanceOf(CorruptDataException.class);
    assertThatThrownBy(() -> writer.append(two)).isInstanceOf(IllegalArgumentException.class);
    assertThat(garbage.refCnt()).isZero();
    assertThat(two.refCnt()).isZero();
    assertThat(writer.isEmpty()).isTrue();
    writer.close();
  }

  @Test
  void rejectsNegativeStreamIdsAndOffsets() {
    ObjectWriter writer = new ObjectWriter(1 << 20, UnpooledByteBufAllocator.DEFAULT);
    assertThatThrownBy(() -> writer.append(BatchValue.of(-1, 0, 1, 3).encode()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> writer.append(BatchValue.of(1, -5, 1, 3).encode()))
        .isInstanceOf(IllegalArgumentException.class);
    writer.close();
  }

  @Test
  void closeReleasesTheBatchesOfAnUnfinishedWriter() {
    ObjectWriter writer = new ObjectWriter(10, UnpooledByteBufAllocator.DEFAULT);
    List<ByteBuf> appended = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ByteBuf batch = BatchValue.of(1, i, 1, 8).encode();
      appended.add(batch);
      writer.append(batch);
    }
    writer.close();
    assertThat(appended).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    ByteBuf late = BatchValue.of(1, 5, 1, 8).encode();
    assertThatThrownBy(() -> writer.append(late)).isInstanceOf(IllegalStateException.class);
    assertThat(late.refCnt()).isZero();
  }

  @Test
  void releasingTheFinishedObjectReleasesTheBatches() {
    ObjectWriter writer = new ObjectWriter(10, UnpooledByteBufAllocator.DEFAULT);
    ByteBuf batch = BatchValue.of(1, 0, 1, 8).encode();
    writer.append(batch);
    EncodedObject object = writer.finish();
    assertThat(batch.refCnt()).isPositive();
    object.bytes().release();
    assertThat(batch.refCnt()).isZero();
    assertThatThrownBy(writer::finish).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void anEmptyObjectIsAFooterOverAnEmptyIndex() {
    EncodedObject object = new ObjectWriter(10, UnpooledByteBufAllocator.DEFAULT).finish();
    byte[] bytes = TestObjects.bytes(object);
    assertThat(bytes).hasSize(48);
    assertThat(ByteBuffer.wrap(bytes).getLong(0)).isZero();
    assertThat(ByteBuffer.wrap(bytes).getInt(8)).isZero();
    assertThat(object.streamRanges()).isEmpty();
  }

  @Test
  void linkRecordsCoverTheMagnitudeOfTheirCount() {
    EncodedObject object =
        TestObjects.writer(
                1 << 20, List.of(BatchValue.of(3, 0, -10, 4), BatchValue.of(3, 10, 2, 4)))
            .finish();
    object.bytes().release();
    assertThat(object.entries()).singleElement().extracting(IndexEntry::endOffset).isEqualTo(12L);
  }
}
