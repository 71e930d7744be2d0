package io.picomq.s3stream.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.CorruptDataException.Reason;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectNotFoundException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A composite object links blocks of component objects and reads like one object. */
class CompositeObjectTest {

  private static final long COMPOSITE_ID = 100;

  private final CountingObjectStore store = new CountingObjectStore(new MemoryObjectStore());
  private final List<BatchValue> stream5 = new ArrayList<>();
  private final List<ObjectReader> components = new ArrayList<>();

  /** Stream 5 offsets [0,10) in object 1, [10,25) in object 2 (after stream 4), [25,30) in 3. */
  CompositeObjectTest() {
    for (int i = 0; i < 30; i++) {
      stream5.add(BatchValue.of(5, i, 1, 30));
    }
    List<BatchValue> second = new ArrayList<>(List.of(BatchValue.of(4, 0, 1, 30)));
    second.addAll(stream5.subList(10, 25));
    components.add(component(1, stream5.subList(0, 10)));
    components.add(component(2, second));
    components.add(component(3, stream5.subList(25, 30)));
  }

  private ObjectReader component(long objectId, List<BatchValue> batches) {
    WrittenObject written = TestObjects.upload(store, objectId, 100, batches);
    return TestObjects.open(store, objectId, written.sizeBytes());
  }

  private static List<IndexEntry> entriesOf(ObjectReader reader, long streamId) {
    return reader.index().entries().stream().filter(e -> e.streamId() == streamId).toList();
  }

  private CompositeObjectWriter linkingStream5() {
    CompositeObjectWriter writer = new CompositeObjectWriter(UnpooledByteBufAllocator.DEFAULT);
    for (ObjectReader component : components) {
      writer.addComponent(component.objectId(), entriesOf(component, 5));
    }
    return writer;
  }

  @AfterEach
  void everyGetBufferWasReleased() {
    assertThat(store.unreleased()).isEmpty();
  }

  @Test
  void readsLikeOneObjectFromTheComponents() {
    WrittenObject written =
        TestObjects.join(linkingStream5().upload(store, ObjectNamespace.DEFAULT, COMPOSITE_ID));
    ObjectReader reader = TestObjects.open(store, COMPOSITE_ID, written.sizeBytes());

    assertThat(reader.index().type()).isEqualTo(ObjectType.COMPOSITE);
    assertThat(TestObjects.readAll(reader, 5, 0)).isEqualTo(stream5);
    assertThat(TestObjects.readAll(reader, 5, 12)).isEqualTo(stream5.subList(12, 30));
    assertThat(TestObjects.readAll(reader, 4, 0)).as("stream 4 was not linked").isEmpty();
  }

  @Test
  void blocksAreFetchedFromTheComponentThatHoldsThem() {
    WrittenObject written =
        TestObjects.join(linkingStream5().upload(store, ObjectNamespace.DEFAULT, COMPOSITE_ID));
    ObjectReader reader = TestObjects.open(store, COMPOSITE_ID, written.sizeBytes());
    store.reset();

    TestObjects.readAll(reader, 5, 0);
    // One GET per component: each component's stream-5 blocks are adjacent.
    assertThat(store.gets())
        .extracting(CountingObjectStore.Get::key)
        .containsExactly(
            ObjectNamespace.DEFAULT.key(1),
            ObjectNamespace.DEFAULT.key(2),
            ObjectNamespace.DEFAULT.key(3));
  }

  @Test
  void theWrittenObjectDescribesWhatItLinks() {
    EncodedObject object = linkingStream5().finish();
    object.bytes().release();
    long linkedBytes =
        components.stream()
            .flatMap(c -> entriesOf(c, 5).stream())
            .mapToLong(IndexEntry::blockSize)
            .sum();

    assertThat(object.streamRanges()).containsExactly(new StreamRange(5, 0, 30, linkedBytes));
    assertThat(object.attributes().type()).isEqualTo(ObjectType.COMPOSITE);
    assertThat(object.attributes().deepDelete()).isTrue();
    assertThat(object.attributes().value()).isEqualTo(1 | 1 << 18);
  }

  @Test
  void layoutFollowsTheSpecification() {
    byte[] bytes = TestObjects.bytes(linkingStream5().finish());
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    List<IndexEntry> linked = components.stream().flatMap(c -> entriesOf(c, 5).stream()).toList();
    int tableSize = 5 + 3 * 14;

    assertThat(bytes).hasSize(tableSize + 36 * linked.size() + 48);
    assertThat(buf.get(0)).isEqualTo((byte) 0x52);
    assertThat(buf.getInt(1)).isEqualTo(3);
    int firstEntry = 0;
    for (int i = 0; i < 3; i++) {
      assertThat(buf.getLong(5 + i * 14)).isEqualTo(i + 1);
      assertThat(buf.getInt(5 + i * 14 + 8)).isEqualTo(firstEntry);
      assertThat(buf.getShort(5 + i * 14 + 12)).isZero();
      firstEntry += entriesOf(components.get(i), 5).size();
    }
    for (int i = 0; i < linked.size(); i++) {
      int at = tableSize + i * 36;
      IndexEntry e = linked.get(i);
      assertThat(buf.getLong(at)).isEqualTo(e.streamId());
      assertThat(buf.getLong(at + 8)).isEqualTo(e.startOffset());
      assertThat(buf.getLong(at + 24)).as("position in the component").isEqualTo(e.startPosition());
    }
    int footer = bytes.length - 48;
    assertThat(buf.getLong(footer)).isEqualTo(tableSize);
    assertThat(buf.getInt(footer + 8)).isEqualTo(36 * linked.size());
    assertThat(buf.getLong(footer + 40)).isEqualTo(0x88E241B785F4CFF8L);
  }

  @Test
  void aSmallTailReadFetchesTheComponentTableFromTheStart() {
    WrittenObject written =
        TestObjects.join(linkingStream5().upload(store, ObjectNamespace.DEFAULT, COMPOSITE_ID));
    store.reset();
    ObjectReader reader =
        TestObjects.join(
            ObjectReader.open(
                store, ObjectNamespace.DEFAULT, COMPOSITE_ID, written.sizeBytes(), 48));
    assertThat(store.gets()).hasSize(2);
    assertThat(store.gets().get(1).start()).isZero();
    assertThat(TestObjects.readAll(reader, 5, 0)).isEqualTo(stream5);
  }

  @Test
  void rejectsComponentsOutOfOrderOrEmpty() {
    CompositeObjectWriter writer = new CompositeObjectWriter(UnpooledByteBufAllocator.DEFAULT);
    writer.addComponent(2, entriesOf(components.get(1), 5));
    assertThatThrownBy(() -> writer.addComponent(1, entriesOf(components.get(0), 5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not sort after");
    assertThatThrownBy(() -> writer.addComponent(3, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    // A rejected component leaves the writer as it was.
    writer.addComponent(3, entriesOf(components.get(2), 5));
    EncodedObject object = writer.finish();
    object.bytes().release();
    assertThat(object.streamRanges()).extracting(StreamRange::startOffset).containsExactly(10L);
  }

  @Test
  void aMissingComponentIsTheStoresNotFound() {
    WrittenObject written =
        TestObjects.join(linkingStream5().upload(store, ObjectNamespace.DEFAULT, COMPOSITE_ID));
    ObjectReader reader = TestObjects.open(store, COMPOSITE_ID, written.sizeBytes());
    TestObjects.join(store.delete(List.of(ObjectNamespace.DEFAULT.key(2))));

    assertThatThrownBy(() -> TestObjects.readAll(reader, 5, 0))
        .isInstanceOf(ObjectNotFoundException.class);
    assertThat(TestObjects.readAll(reader, 5, 0 + 25)).isEqualTo(stream5.subList(25, 30));
  }

  @Test
  void anEntryPointingPastItsComponentIsCorrupt() {
    CompositeObjectWriter writer = new CompositeObjectWriter(UnpooledByteBufAllocator.DEFAULT);
    IndexEntry real = entriesOf(components.get(2), 5).get(0);
    IndexEntry beyond =
        new IndexEntry(
            5,
            real.startOffset(),
            real.endOffsetDelta(),
            real.recordCount(),
            components.get(2).sizeBytes(),
            real.blockSize());
    writer.addComponent(3, List.of(beyond));
    WrittenObject written =
        TestObjects.join(writer.upload(store, ObjectNamespace.DEFAULT, COMPOSITE_ID));
    ObjectReader reader = TestObjects.open(store, COMPOSITE_ID, written.sizeBytes());

    assertCorrupt(() -> TestObjects.readAll(reader, 5, real.startOffset()), Reason.TRUNCATED);
  }

  @Test
  void aCorruptComponentTableIsRejected() {
    byte[] valid = TestObjects.bytes(linkingStream5().finish());

    byte[] badMagic = valid.clone();
    badMagic[0] = 0x5A;
    assertCorrupt(() -> openComposite(badMagic), Reason.UNKNOWN_MAGIC);

    byte[] badCount = valid.clone();
    ByteBuffer.wrap(badCount).putInt(1, 4);
    assertCorrupt(() -> openComposite(badCount), Reason.BAD_LENGTH);

    byte[] unordered = valid.clone();
    ByteBuffer.wrap(unordered).putInt(5 + 14 + 8, 0);
    assertCorrupt(() -> openComposite(unordered), Reason.INCONSISTENT);

    byte[] pastIndex = valid.clone();
    ByteBuffer.wrap(pastIndex).putInt(5 + 2 * 14 + 8, 10_000);
    assertCorrupt(() -> openComposite(pastIndex), Reason.INCONSISTENT);
  }

  private ObjectReader openComposite(byte[] bytes) {
    TestObjects.put(store, COMPOSITE_ID, bytes);
    return TestObjects.open(store, COMPOSITE_ID, bytes.length);
  }

  private static void assertCorrupt(ThrowingCallable call, Reason reason) {
    assertThatThrownBy(call)
        .isInstanceOf(CorruptDataException.class)
        .satisfies(e -> assertThat(((CorruptDataException) e).reason()).isEqualTo(reason));
  }
}
