package io.picomq.s3stream.object;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Builds a composite object: an index over data blocks that stay where they are, in their component
 * objects. Compaction uses it to merge many small objects into one without copying their data; the
 * components must then outlive the composite (its attributes ask for a deep delete).
 *
 * <p>Layout (big-endian):
 *
 * <pre>
 *   component table: magic u8 = 0x52 | count u32 | (objectId i64 | firstEntry i32 | bucket u16)*
 *   index block:     36-byte entries, as in a normal object, but startPosition is a position
 *                    in the entry's component object
 *   footer:          indexStart i64 | indexLength i32 | 28 zero bytes | magic i64 0x88E241B785F4CFF8
 * </pre>
 *
 * <p>Entry {@code i} belongs to the last component whose {@code firstEntry <= i}. As in a normal
 * object, the entries across all components are sorted by (stream id, start offset) without
 * overlap, so components are added in that order. The upstream only links blocks of one stream
 * without gaps; this writer also accepts several streams and gaps under the same rules as {@link
 * ObjectWriter}, and reports one {@link StreamRange} per gap-free run. Components are normal
 * objects: a composite cannot link another composite's entries, because they point into yet other
 * objects.
 *
 * <p>Threading: not thread-safe; one owner. It holds no buffers until {@link #finish}.
 */
public final class CompositeObjectWriter {

  private final ByteBufAllocator allocator;

  // Owner-thread state.
  private final List<ComponentObject> components = new ArrayList<>();
  private final List<IndexEntry> entries = new ArrayList<>();
  private boolean finished;

  public CompositeObjectWriter(ByteBufAllocator allocator) {
    this.allocator = Objects.requireNonNull(allocator, "allocator");
  }

  /**
   * Links blocks of the normal object {@code objectId}.
   *
   * @param componentEntries entries taken from that object's index ({@link ObjectIndex#entries()}),
   *     in index order; a subset is fine
   * @throws IllegalArgumentException if there are none, or they do not sort after every entry
   *     linked so far
   * @throws IllegalStateException after {@link #finish}
   */
  public void addComponent(long objectId, List<IndexEntry> componentEntries) {
    if (finished) {
      throw new IllegalStateException("the composite object writer is finished");
    }
    List<IndexEntry> added = List.copyOf(componentEntries);
    if (added.isEmpty()) {
      throw new IllegalArgumentException("component object " + objectId + " links no blocks");
    }
    IndexEntry previous = entries.isEmpty() ? null : entries.get(entries.size() - 1);
    for (IndexEntry entry : added) {
      if (previous != null
          && (entry.streamId() < previous.streamId()
              || (entry.streamId() == previous.streamId()
                  && entry.startOffset() < previous.endOffset()))) {
        throw new IllegalArgumentException(
            "entry "
                + entry
                + " of component object "
                + objectId
                + " does not sort after "
                + previous);
      }
      previous = entry;
    }
    components.add(new ComponentObject(objectId, entries.size(), 0));
    entries.addAll(added);
  }

  /**
   * Ends the composite object.
   *
   * @return the object; the caller owns its bytes
   * @throws IllegalStateException if called twice
   */
  public EncodedObject finish() {
    if (finished) {
      throw new IllegalStateException("the composite object writer is finished");
    }
    finished = true;
    int tableSize = ObjectIndex.COMPONENTS_HEADER_SIZE + components.size() * ComponentObject.SIZE;
    int indexSize = entries.size() * IndexEntry.SIZE;
    ByteBuf out = allocator.buffer(tableSize + indexSize + Footer.SIZE);
    try {
      out.writeByte(ObjectIndex.COMPONENTS_MAGIC).writeInt(components.size());
      for (ComponentObject component : components) {
        out.writeLong(component.objectId())
            .writeInt(component.firstEntry())
            .writeShort(component.bucket());
      }
      entries.forEach(entry -> entry.encodeTo(out));
      new Footer(tableSize, indexSize, ObjectType.COMPOSITE).encodeTo(out);
      return new EncodedObject(out, entries, StreamRange.of(entries), ObjectAttributes.COMPOSITE);
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /**
   * Finishes the composite object and stores it under {@code namespace.key(objectId)}.
   *
   * @return completes when the object is durable, or with the store's error
   */
  public CompletableFuture<WrittenObject> upload(
      ObjectStore store, ObjectNamespace namespace, long objectId) {
    namespace.key(objectId); // reject a bad id before the writer is consumed
    return finish().putTo(store, namespace, objectId);
  }
}
