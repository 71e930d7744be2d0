package io.picomq.s3stream.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.ResourceLeakDetector;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.CorruptDataException.Reason;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectNotFoundException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Malformed objects fail with {@link CorruptDataException} naming the check, never otherwise. */
class CorruptObjectTest {

  private static final long ID = 9;

  private final CountingObjectStore store = new CountingObjectStore(new MemoryObjectStore());
  private final List<BatchValue> batches = new ArrayList<>();
  private final byte[] valid;
  private final int indexStart;
  private final int footerStart;

  CorruptObjectTest() {
    for (int i = 0; i < 6; i++) {
      batches.add(BatchValue.of(1, i, 1, 20));
    }
    for (int i = 0; i < 6; i++) {
      batches.add(BatchValue.of(2, i * 2, 2, 20));
    }
    valid = TestObjects.bytes(TestObjects.writer(40, batches).finish());
    footerStart = valid.length - 48;
    indexStart = (int) ByteBuffer.wrap(valid).getLong(footerStart);
  }

  @AfterEach
  void everyGetBufferWasReleased() {
    assertThat(store.unreleased()).isEmpty();
  }

  @BeforeAll
  static void paranoidLeakDetection() {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  private ObjectReader openCopy(byte[] bytes, long sizeBytes) {
    TestObjects.put(store, ID, bytes);
    return TestObjects.open(store, ID, sizeBytes);
  }

  private static void assertCorrupt(ThrowingCallable call, Reason reason) {
    assertThatThrownBy(call)
        .isInstanceOf(CorruptDataException.class)
        .satisfies(e -> assertThat(((CorruptDataException) e).reason()).isEqualTo(reason));
  }

  private byte[] mutated(java.util.function.Consumer<ByteBuffer> change) {
    byte[] copy = valid.clone();
    change.accept(ByteBuffer.wrap(copy));
    return copy;
  }

  @Test
  void theValidObjectReadsBack() {
    ObjectReader reader = openCopy(valid, valid.length);
    assertThat(reader.index().entries()).hasSizeGreaterThan(4);
    assertThat(TestObjects.scan(reader)).isEqualTo(batches);
  }

  @Test
  void anObjectSmallerThanAFooterIsTruncated() {
    assertCorrupt(() -> openCopy(new byte[47], 47), Reason.TRUNCATED);
  }

  @Test
  void anObjectShorterThanItsMetadataSaysIsTruncated() {
    assertCorrupt(() -> openCopy(valid, valid.length + 1), Reason.TRUNCATED);
  }

  @Test
  void aSizeShorterThanTheObjectMisplacesTheFooter() {
    assertThatThrownBy(() -> openCopy(valid, valid.length - 1))
        .isInstanceOf(CorruptDataException.class);
  }

  @Test
  void anUnknownFooterMagicIsRejected() {
    assertCorrupt(
        () -> openCopy(mutated(b -> b.put(valid.length - 1, (byte) 0)), valid.length),
        Reason.UNKNOWN_MAGIC);
  }

  @Test
  void aReservedFooterByteMustBeZero() {
    assertCorrupt(
        () -> openCopy(mutated(b -> b.put(footerStart + 20, (byte) 1)), valid.length),
        Reason.INCONSISTENT);
  }

  @Test
  void anIndexPointingPastTheObjectIsRejected() {
    assertCorrupt(
        () -> openCopy(mutated(b -> b.putLong(footerStart, valid.length)), valid.length),
        Reason.BAD_LENGTH);
    assertCorrupt(
        () -> openCopy(mutated(b -> b.putInt(footerStart + 8, 36 * 1000)), valid.length),
        Reason.BAD_LENGTH);
  }

  @Test
  void anIndexLengthThatIsNotWholeEntriesIsRejected() {
    byte[] bad =
        mutated(
            b -> {
              b.putLong(footerStart, indexStart + 1);
              b.putInt(footerStart + 8, footerStart - indexStart - 1);
            });
    assertCorrupt(() -> openCopy(bad, valid.length), Reason.BAD_LENGTH);
  }

  @Test
  void anUnsortedIndexIsRejected() {
    byte[] swapped = valid.clone();
    System.arraycopy(valid, indexStart, swapped, indexStart + 36, 36);
    System.arraycopy(valid, indexStart + 36, swapped, indexStart, 36);
    assertCorrupt(() -> openCopy(swapped, valid.length), Reason.INCONSISTENT);
  }

  @Test
  void overlappingEntriesOfAStreamAreRejected() {
    // Entry 1 claims to start where entry 0 starts (stream 1, offset 0).
    byte[] bad = mutated(b -> b.putLong(indexStart + 36 + 8, 0));
    assertCorrupt(() -> openCopy(bad, valid.length), Reason.INCONSISTENT);
  }

  @Test
  void blocksThatDoNotTileTheDataRegionAreRejected() {
    byte[] moved =
        mutated(b -> b.putLong(indexStart + 36 + 24, b.getLong(indexStart + 36 + 24) + 1));
    assertCorrupt(() -> openCopy(moved, valid.length), Reason.BAD_LENGTH);
    byte[] resized = mutated(b -> b.putInt(indexStart + 32, b.getInt(indexStart + 32) + 1));
    assertCorrupt(() -> openCopy(resized, valid.length), Reason.BAD_LENGTH);
  }

  @Test
  void anImpossibleEntryIsRejected() {
    byte[] noRecords = mutated(b -> b.putInt(indexStart + 20, 0));
    assertCorrupt(() -> openCopy(noRecords, valid.length), Reason.BAD_LENGTH);
    byte[] negativeStream = mutated(b -> b.put(indexStart, (byte) 0x80));
    assertCorrupt(() -> openCopy(negativeStream, valid.length), Reason.BAD_LENGTH);
  }

  @Test
  void aBlockWithABadMagicFailsWhenRead() {
    ObjectReader reader = openCopy(mutated(b -> b.put(0, (byte) 0x5B)), valid.length);
    assertCorrupt(() -> TestObjects.readAll(reader, 1, 0), Reason.UNKNOWN_MAGIC);
  }

  @Test
  void aBlockThatDisagreesWithItsEntryFailsWhenRead() {
    // The first batch of block 0 claims stream 3; the index says stream 1.
    ObjectReader wrongStream = openCopy(mutated(b -> b.putLong(10 + 1, 3)), valid.length);
    assertCorrupt(() -> TestObjects.readAll(wrongStream, 1, 0), Reason.INCONSISTENT);

    ObjectReader wrongCount = openCopy(mutated(b -> b.putInt(2, 1)), valid.length);
    assertCorrupt(() -> TestObjects.readAll(wrongCount, 1, 0), Reason.INCONSISTENT);

    // Entry 2, the last of stream 1, says its block ends one offset later than its batches do.
    int entry2 = indexStart + 2 * 36;
    ObjectReader wrongEnd =
        openCopy(mutated(b -> b.putInt(entry2 + 16, b.getInt(entry2 + 16) + 1)), valid.length);
    assertCorrupt(() -> TestObjects.readAll(wrongEnd, 1, 0), Reason.INCONSISTENT);
  }

  @Test
  void aBatchRunningPastItsBlockFailsWhenRead() {
    // The first batch of block 0 announces a longer payload than the block holds.
    ObjectReader reader = openCopy(mutated(b -> b.putInt(10 + 29, 10_000)), valid.length);
    assertCorrupt(() -> TestObjects.readAll(reader, 1, 0), Reason.TRUNCATED);
  }

  @Test
  void aMissingObjectIsTheStoresNotFound() {
    assertThatThrownBy(() -> TestObjects.open(store, 12345, 100))
        .isInstanceOf(ObjectNotFoundException.class);
  }
}
