package io.picomq.s3stream.object;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.ResourceLeakDetector;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Writer to store to reader, through the index, on one object with several streams. */
class ObjectReaderTest {

  private static final long OBJECT_ID = 4242;
  private static final int PAYLOAD = 90;
  private static final int BATCH_BYTES = 33 + PAYLOAD;

  private final CountingObjectStore store = new CountingObjectStore(new MemoryObjectStore());
  private final List<BatchValue> stream2 = new ArrayList<>();
  private final List<BatchValue> stream5 = new ArrayList<>();
  private final List<BatchValue> stream9 = new ArrayList<>();
  private WrittenObject written;

  @AfterEach
  void everyGetBufferWasReleased() {
    assertThat(store.unreleased()).isEmpty();
  }

  @BeforeAll
  static void paranoidLeakDetection() {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  /**
   * Stream 2: 3 batches; stream 5: 40 one-offset batches over five blocks ([0,7) [7,17) [17,27)
   * [27,37) [37,40): stream 2 leaves 3 payloads in the threshold counter); stream 9: 4 batches of 5
   * offsets from 100.
   */
  @BeforeEach
  void writeObject() {
    for (int i = 0; i < 3; i++) {
      stream2.add(BatchValue.of(2, i, 1, PAYLOAD));
    }
    for (int i = 0; i < 40; i++) {
      stream5.add(BatchValue.of(5, i, 1, PAYLOAD));
    }
    for (int i = 0; i < 4; i++) {
      stream9.add(BatchValue.of(9, 100 + i * 5, 5, PAYLOAD));
    }
    List<BatchValue> all = new ArrayList<>(stream2);
    all.addAll(stream5);
    all.addAll(stream9);
    written = TestObjects.upload(store, OBJECT_ID, PAYLOAD * 10, all);
    store.reset();
  }

  private ObjectReader open() {
    ObjectReader reader = TestObjects.open(store, OBJECT_ID, written.sizeBytes());
    store.reset();
    return reader;
  }

  private List<BatchValue> read(long streamId, long start, long end, int maxBytes) {
    ObjectReadResult result = TestObjects.join(open().read(streamId, start, end, maxBytes));
    return BatchValue.consume(result.batches());
  }

  @Test
  void everyStreamReadsBackExactly() {
    ObjectReader reader = open();
    assertThat(TestObjects.readAll(reader, 2, 0)).isEqualTo(stream2);
    assertThat(TestObjects.readAll(reader, 5, 0)).isEqualTo(stream5);
    assertThat(TestObjects.readAll(reader, 9, 100)).isEqualTo(stream9);
    assertThat(reader.index().type()).isEqualTo(ObjectType.NORMAL);
    assertThat(StreamRange.of(reader.index().entries())).isEqualTo(written.streamRanges());
  }

  @Test
  void theWrittenRangesDescribeTheObject() {
    assertThat(written.streamRanges())
        .extracting(StreamRange::streamId, StreamRange::startOffset, StreamRange::endOffset)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(2L, 0L, 3L),
            org.assertj.core.groups.Tuple.tuple(5L, 0L, 40L),
            org.assertj.core.groups.Tuple.tuple(9L, 100L, 120L));
    assertThat(open().index().entries())
        .filteredOn(e -> e.streamId() == 5)
        .extracting(IndexEntry::startOffset)
        .containsExactly(0L, 7L, 17L, 27L, 37L);
    assertThat(written.key()).isEqualTo(ObjectNamespace.DEFAULT.key(OBJECT_ID));
    assertThat(written.attributes()).isEqualTo(ObjectAttributes.NORMAL);
  }

  @Test
  void aRangeStartingMidBlockReturnsFromTheBatchHoldingTheStart() {
    ObjectReadResult result = TestObjects.join(open().read(5, 15, 16, Integer.MAX_VALUE));
    assertThat(BatchValue.consume(result.batches())).containsExactly(stream5.get(15));
    assertThat(result.nextOffset()).isEqualTo(16);
  }

  @Test
  void aBatchStraddlingTheStartIsReturnedWhole() {
    ObjectReadResult result = TestObjects.join(open().read(9, 107, 111, Integer.MAX_VALUE));
    assertThat(BatchValue.consume(result.batches()))
        .containsExactly(stream9.get(1), stream9.get(2));
    assertThat(result.nextOffset()).isEqualTo(115);
  }

  @Test
  void aRangeAtABlockBoundaryStartsWithThatBlock() {
    ObjectReader reader = open();
    int boundary =
        (int)
            reader.index().entries().stream()
                .filter(e -> e.streamId() == 5 && e.startOffset() > 0)
                .findFirst()
                .orElseThrow()
                .startOffset();
    ObjectReadResult result = TestObjects.join(reader.read(5, boundary, 40, Integer.MAX_VALUE));
    assertThat(BatchValue.consume(result.batches())).isEqualTo(stream5.subList(boundary, 40));
    assertThat(result.nextOffset()).isEqualTo(40);
  }

  @Test
  void theEndOffsetCutsMidBlock() {
    assertThat(read(5, 5, 12, Integer.MAX_VALUE)).isEqualTo(stream5.subList(5, 12));
  }

  @Test
  void pastTheEndBeforeTheStartOrAnotherStreamIsEmptyWithoutAGet() {
    ObjectReader reader = open();
    for (long[] query : new long[][] {{5, 40}, {5, 1000}, {9, 50}, {3, 0}, {10, 0}}) {
      ObjectReadResult result =
          TestObjects.join(reader.read(query[0], query[1], Long.MAX_VALUE, 1));
      assertThat(result.batches()).isEmpty();
      assertThat(result.nextOffset()).isEqualTo(query[1]);
    }
    ObjectReadResult empty = TestObjects.join(reader.read(5, 7, 7, Integer.MAX_VALUE));
    assertThat(empty.batches()).isEmpty();
    assertThat(store.gets()).isEmpty();
  }

  @Test
  void theByteLimitIsSoftAndCountsEncodedBatches() {
    assertThat(read(5, 3, 40, 1)).containsExactly(stream5.get(3));
    assertThat(read(5, 3, 40, BATCH_BYTES)).containsExactly(stream5.get(3));
    assertThat(read(5, 3, 40, BATCH_BYTES + 1)).isEqualTo(stream5.subList(3, 5));
    assertThat(read(5, 0, 40, BATCH_BYTES * 25)).isEqualTo(stream5.subList(0, 25));
  }

  @Test
  void openCostsOneGetAndAReadOneGetPerRunOfBlocks() {
    ObjectReader reader = TestObjects.open(store, OBJECT_ID, written.sizeBytes());
    assertThat(store.gets()).hasSize(1);
    assertThat(store.gets().get(0).end()).isEqualTo(written.sizeBytes());
    store.reset();

    TestObjects.readAll(reader, 5, 0);
    long stream5Blocks = reader.index().entries().stream().filter(e -> e.streamId() == 5).count();
    assertThat(stream5Blocks).isGreaterThan(1);
    assertThat(store.gets()).hasSize(1);
  }

  @Test
  void aSmallTailReadFetchesTheRestOfTheIndexWithASecondGet() {
    ObjectReader reader =
        TestObjects.join(
            ObjectReader.open(store, ObjectNamespace.DEFAULT, OBJECT_ID, written.sizeBytes(), 60));
    assertThat(store.gets()).hasSize(2);
    assertThat(reader.index().entries()).isEqualTo(open().index().entries());
    assertThat(TestObjects.readAll(reader, 5, 0)).isEqualTo(stream5);
  }

  @Test
  void anEmptyObjectOpensAndHoldsNothing() {
    WrittenObject empty = TestObjects.upload(store, 7, 100, List.of());
    ObjectReader reader = TestObjects.open(store, 7, empty.sizeBytes());
    assertThat(reader.index().entries()).isEmpty();
    assertThat(TestObjects.readAll(reader, 5, 0)).isEmpty();
    assertThat(empty.sizeBytes()).isEqualTo(48);
  }
}
