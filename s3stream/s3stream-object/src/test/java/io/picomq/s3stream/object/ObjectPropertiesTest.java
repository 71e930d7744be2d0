package io.picomq.s3stream.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Properties over random objects. Each example draws one {@code long}; the report of a failing
 * property names it ({@code Smallest found falsifying value(s)}), and {@link Spec#random} rebuilds
 * the object from it exactly.
 *
 * <p>The whole run can be replayed too: QuickTheories draws a fresh seed for every property and
 * ends a failure report with {@code Seed was N}; passing it back as the system property {@code
 * QT_SEED} replays the same examples, e.g. {@code mvn -pl s3stream/s3stream-object test
 * -Dtest='ObjectPropertiesTest#everyObjectReadsBackExactly' -DQT_SEED=N}. The same holds for every
 * property test in this module.
 */
class ObjectPropertiesTest {

  private static final long ID = 31;

  /** Random streams and batches: gaps, link records, empty payloads, tiny and large thresholds. */
  record Spec(int thresholdBytes, List<BatchValue> batches) {

    static Spec random(long seed) {
      Random random = new Random(seed);
      int threshold = random.nextInt(4) == 0 ? 1 : 1 + random.nextInt(1500);
      List<BatchValue> batches = new ArrayList<>();
      long streamId = random.nextInt(3);
      int streams = random.nextInt(7);
      for (int s = 0; s < streams; s++) {
        streamId += 1 + random.nextInt(random.nextBoolean() ? 3 : 1_000_000);
        long offset = random.nextBoolean() ? 0 : random.nextInt(1_000_000);
        int count = 1 + random.nextInt(30);
        for (int i = 0; i < count; i++) {
          if (i > 0 && random.nextInt(10) == 0) {
            offset += 1 + random.nextInt(50);
          }
          int offsets = random.nextInt(12) == 0 ? -(1 + random.nextInt(4)) : 1 + random.nextInt(5);
          int payload = random.nextInt(8) == 0 ? 0 : random.nextInt(300);
          BatchValue batch = BatchValue.of(streamId, offset, offsets, payload);
          batches.add(batch);
          offset = batch.lastOffset();
        }
      }
      return new Spec(threshold, List.copyOf(batches));
    }

    /** What a read must return, from the definition in {@link ObjectReader#read}. */
    List<BatchValue> expectedRead(long streamId, long start, long end, int maxBytes) {
      List<BatchValue> expected = new ArrayList<>();
      if (start == end) {
        return expected;
      }
      long next = start;
      long bytes = 0;
      for (BatchValue b : batches) {
        if (b.streamId() != streamId || b.lastOffset() <= start) {
          continue;
        }
        if (b.baseOffset() > next || b.baseOffset() >= end || bytes >= maxBytes) {
          break;
        }
        expected.add(b);
        bytes += 33 + b.payloadLength();
        next = b.lastOffset();
      }
      return expected;
    }
  }

  @Test
  void everyObjectReadsBackExactly() {
    qt().withExamples(300)
        .forAll(longs().all())
        .checkAssert(ObjectPropertiesTest::readsBackExactly);
  }

  private static void readsBackExactly(long seed) {
    Spec spec = Spec.random(seed);
    Random random = new Random(~seed);
    CountingObjectStore store = new CountingObjectStore(new MemoryObjectStore());
    WrittenObject written = TestObjects.upload(store, ID, spec.thresholdBytes(), spec.batches());
    ObjectReader reader =
        TestObjects.join(
            ObjectReader.open(
                store, ObjectNamespace.DEFAULT, ID, written.sizeBytes(), random.nextInt(4096)));

    assertThat(TestObjects.scan(reader)).isEqualTo(spec.batches());
    List<BatchValue> byRanges = new ArrayList<>();
    for (StreamRange range : written.streamRanges()) {
      ObjectReadResult result =
          TestObjects.join(
              reader.read(
                  range.streamId(), range.startOffset(), range.endOffset(), Integer.MAX_VALUE));
      assertThat(result.nextOffset()).isEqualTo(range.endOffset());
      byRanges.addAll(BatchValue.consume(result.batches()));
    }
    assertThat(byRanges).as("the ranges cover every batch once").isEqualTo(spec.batches());

    for (int q = 0; q < 10 && !spec.batches().isEmpty(); q++) {
      BatchValue near = spec.batches().get(random.nextInt(spec.batches().size()));
      long start = Math.max(0, near.baseOffset() + random.nextInt(7) - 3);
      long end = random.nextBoolean() ? Long.MAX_VALUE : start + random.nextInt(40);
      int maxBytes = random.nextBoolean() ? Integer.MAX_VALUE : 1 + random.nextInt(2000);
      ObjectReadResult result =
          TestObjects.join(reader.read(near.streamId(), start, end, maxBytes));
      List<BatchValue> expected = spec.expectedRead(near.streamId(), start, end, maxBytes);
      assertThat(BatchValue.consume(result.batches())).isEqualTo(expected);
      long expectedNext =
          expected.isEmpty() ? start : expected.get(expected.size() - 1).lastOffset();
      assertThat(result.nextOffset()).isEqualTo(expectedNext);
    }
    assertThat(store.unreleased()).isEmpty();
  }

  /**
   * Any single corrupted byte of the index or footer is detected: by open, or at the latest by
   * reading every block (each block is checked against its entry). A read of one range may not
   * touch the damaged entry; then it returns correct batches, at worst fewer of them, and says so
   * through its next offset. It never returns a wrong batch.
   */
  @Test
  void aCorruptIndexOrFooterByteIsAlwaysDetected() {
    qt().withExamples(500)
        .forAll(longs().all())
        .checkAssert(ObjectPropertiesTest::corruptIndexOrFooterByteIsDetected);
  }

  private static void corruptIndexOrFooterByteIsDetected(long seed) {
    Spec spec = Spec.random(seed);
    Random random = new Random(~seed);
    EncodedObject original = TestObjects.writer(spec.thresholdBytes(), spec.batches()).finish();
    List<StreamRange> ranges = original.streamRanges();
    byte[] bytes = TestObjects.bytes(original);
    int indexStart = (int) ByteBuffer.wrap(bytes).getLong(bytes.length - 48);
    int at = indexStart + random.nextInt(bytes.length - indexStart);
    bytes[at] ^= (byte) (1 + random.nextInt(255));
    CountingObjectStore store = new CountingObjectStore(new MemoryObjectStore());
    TestObjects.put(store, ID, bytes);

    ObjectReader reader;
    try {
      reader = TestObjects.open(store, ID, bytes.length);
    } catch (CorruptDataException detectedAtOpen) {
      assertThat(store.unreleased()).isEmpty();
      return;
    }
    assertThatThrownBy(() -> TestObjects.scan(reader))
        .as("byte %d of %d (index at %d)", at, bytes.length, indexStart)
        .isInstanceOf(CorruptDataException.class);

    for (StreamRange range : ranges) {
      List<BatchValue> expected =
          spec.expectedRead(
              range.streamId(), range.startOffset(), range.endOffset(), Integer.MAX_VALUE);
      try {
        ObjectReadResult result =
            TestObjects.join(
                reader.read(
                    range.streamId(), range.startOffset(), range.endOffset(), Integer.MAX_VALUE));
        List<BatchValue> got = BatchValue.consume(result.batches());
        assertThat(got.size()).isLessThanOrEqualTo(expected.size());
        assertThat(got).isEqualTo(expected.subList(0, got.size()));
        long next = got.isEmpty() ? range.startOffset() : got.get(got.size() - 1).lastOffset();
        assertThat(result.nextOffset()).isEqualTo(next);
      } catch (CorruptDataException detected) {
        // Detected: the read touched the damaged entry.
      }
    }
    assertThat(store.unreleased()).isEmpty();
  }
}
