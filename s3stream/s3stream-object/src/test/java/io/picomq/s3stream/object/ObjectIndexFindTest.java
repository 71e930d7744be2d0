package io.picomq.s3stream.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The worked examples of {@link ObjectIndex#find}, plus stream boundaries and gaps. */
class ObjectIndexFindTest {

  private static final int MAX = Integer.MAX_VALUE;
  private static final int BLOCK = 10 + 100; // 100 bytes of batches per block

  /** Stream 1: [0,10); stream 5: [0,10) [10,20) [20,30) [30,40), then a gap, [50,60); stream 9. */
  private final ObjectIndex index =
      normal(
          77,
          List.of(
              entry(1, 0, 0),
              entry(5, 0, 1),
              entry(5, 10, 2),
              entry(5, 20, 3),
              entry(5, 30, 4),
              entry(5, 50, 5),
              entry(9, 0, 6)));

  /**
   * Decodes the index and footer of a normal object whose blocks are {@code entries} (which tile
   * the data region). Only the bytes from the index on exist; decode needs no more.
   */
  private static ObjectIndex normal(long objectId, List<IndexEntry> entries) {
    long indexStart = entries.stream().mapToLong(IndexEntry::blockSize).sum();
    ByteBuf tail = Unpooled.buffer();
    entries.forEach(e -> e.encodeTo(tail));
    new Footer(indexStart, entries.size() * IndexEntry.SIZE, ObjectType.NORMAL).encodeTo(tail);
    long size = indexStart + tail.readableBytes();
    return ObjectIndex.decode(objectId, "normal", size, tail, indexStart);
  }

  /** Decodes a whole composite object: the component table, the index and the footer. */
  private static ObjectIndex composite(
      long objectId, List<IndexEntry> entries, List<ComponentObject> components) {
    ByteBuf bytes = Unpooled.buffer();
    bytes.writeByte(0x52).writeInt(components.size());
    components.forEach(
        c -> bytes.writeLong(c.objectId()).writeInt(c.firstEntry()).writeShort(c.bucket()));
    int tableSize = bytes.readableBytes();
    entries.forEach(e -> e.encodeTo(bytes));
    new Footer(tableSize, entries.size() * IndexEntry.SIZE, ObjectType.COMPOSITE).encodeTo(bytes);
    return ObjectIndex.decode(objectId, "composite", bytes.readableBytes(), bytes, 0);
  }

  private static IndexEntry entry(long streamId, long startOffset, int block) {
    return new IndexEntry(streamId, startOffset, 10, 2, (long) block * BLOCK, BLOCK);
  }

  private List<Long> starts(long streamId, long start, long end, int maxBytes) {
    return index.find(streamId, start, end, maxBytes).stream()
        .map(location -> location.entry().startOffset())
        .toList();
  }

  @Test
  void theDocumentedExamples() {
    assertThat(starts(5, 0, 40, MAX)).containsExactly(0L, 10L, 20L, 30L);
    assertThat(starts(5, 15, 16, MAX)).containsExactly(10L);
    assertThat(starts(5, 20, 40, MAX)).containsExactly(20L, 30L);
    assertThat(starts(5, 0, 40, 100)).containsExactly(0L, 10L);
    assertThat(starts(5, 0, 40, 101)).containsExactly(0L, 10L, 20L);
    assertThat(starts(5, 5, 5, MAX)).isEmpty();
  }

  @Test
  void aReadStopsAtAGapAndNeverStartsInOne() {
    assertThat(starts(5, 0, 100, MAX)).containsExactly(0L, 10L, 20L, 30L);
    assertThat(starts(5, 45, 100, MAX)).isEmpty();
    assertThat(starts(5, 40, 100, MAX)).isEmpty();
    assertThat(starts(5, 50, 100, MAX)).containsExactly(50L);
    assertThat(starts(5, 60, 100, MAX)).isEmpty();
  }

  @Test
  void aReadStaysInsideItsStream() {
    assertThat(starts(1, 0, MAX, MAX)).containsExactly(0L);
    assertThat(index.find(9, 5, 6, MAX))
        .singleElement()
        .extracting(l -> l.entry().streamId())
        .isEqualTo(9L);
    assertThat(starts(3, 0, MAX, MAX)).isEmpty();
    assertThat(starts(10, 0, MAX, MAX)).isEmpty();
  }

  @Test
  void theEndOffsetIsExclusive() {
    assertThat(starts(5, 0, 10, MAX)).containsExactly(0L);
    assertThat(starts(5, 0, 11, MAX)).containsExactly(0L, 10L);
  }

  @Test
  void locationsOfANormalObjectPointIntoItself() {
    assertThat(index.find(5, 0, 10, MAX))
        .containsExactly(new BlockLocation(77, index.entries().get(1)));
  }

  @Test
  void compositeEntriesResolveToTheirComponent() {
    ObjectIndex composite =
        composite(
            78,
            List.of(entry(5, 0, 0), entry(5, 10, 1), entry(5, 20, 0), entry(5, 30, 0)),
            List.of(
                new ComponentObject(100, 0, 0),
                new ComponentObject(101, 2, 0),
                new ComponentObject(102, 3, 0)));
    assertThat(composite.find(5, 0, 40, MAX))
        .extracting(BlockLocation::objectId)
        .containsExactly(100L, 100L, 101L, 102L);
  }

  @Test
  void rejectsBackwardRangesAndNonPositiveByteLimits() {
    assertThatThrownBy(() -> index.find(5, 10, 9, MAX))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> index.find(5, 0, 9, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anEmptyIndexFindsNothing() {
    ObjectIndex empty = normal(1, List.of());
    assertThat(empty.find(5, 0, MAX, MAX)).isEmpty();
  }
}
