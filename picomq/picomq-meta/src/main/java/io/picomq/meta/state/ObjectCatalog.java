package io.picomq.meta.state;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.pcollections.PSortedMap;
import org.pcollections.TreePMap;

/**
 * The committed objects and, for every stream, an index of where each of its offset ranges lives.
 *
 * <p>Invariants, checked on every change (a violation is a bug in the caller and throws {@link
 * IllegalStateException}):
 *
 * <ul>
 *   <li>the index holds exactly the live ranges of the catalogued objects, keyed by (stream, start
 *       offset);
 *   <li>the ranges of one stream never overlap, so within a stream, sorted by start offset, the end
 *       offsets are sorted too. That is what lets {@link #covering} and trimming walk a prefix.
 * </ul>
 *
 * <p>Worked example: stream 7 has ranges [0,10) in object 3, [10,25) in object 5 and [25,30) in
 * object 9. {@code covering(7, 12, 26)} returns object 5's [10,25) (found as the floor entry of 12)
 * and object 9's [25,30). Trimming stream 7 to 10 detaches [0,10); if object 3 holds no other live
 * range it becomes unreachable. Trimming to 12 detaches nothing more: [10,25) is still partly live,
 * so readers skip its first two records.
 */
public final class ObjectCatalog {

  private static final ObjectCatalog EMPTY = new ObjectCatalog(TreePMap.empty(), TreePMap.empty());

  private final TreePMap<Long, CatalogObject> objects;
  private final TreePMap<Long, TreePMap<Long, RangeLocation>> index;

  private ObjectCatalog(
      TreePMap<Long, CatalogObject> objects, TreePMap<Long, TreePMap<Long, RangeLocation>> index) {
    this.objects = objects;
    this.index = index;
  }

  public static ObjectCatalog empty() {
    return EMPTY;
  }

  /** A catalog holding these objects; throws if two of them overlap in some stream. */
  public static ObjectCatalog of(Collection<? extends CatalogObject> objects) {
    ObjectCatalog catalog = EMPTY;
    for (CatalogObject object : objects) {
      catalog = catalog.plus(object);
    }
    return catalog;
  }

  /** What {@link #trimStream} and {@link #dropStream} leave, and the objects they orphaned. */
  public record Detached(ObjectCatalog catalog, List<Long> unreachableObjectIds) {
    public Detached {
      unreachableObjectIds = List.copyOf(unreachableObjectIds);
    }
  }

  public int size() {
    return objects.size();
  }

  /** All catalogued objects by id. */
  public PSortedMap<Long, CatalogObject> objects() {
    return objects;
  }

  public Optional<CatalogObject> object(long objectId) {
    return Optional.ofNullable(objects.get(objectId));
  }

  public boolean contains(long objectId) {
    return objects.containsKey(objectId);
  }

  /** Every live range of a stream, in offset order. */
  public List<RangeLocation> ranges(long streamId) {
    TreePMap<Long, RangeLocation> ranges = index.get(streamId);
    return ranges == null ? List.of() : List.copyOf(ranges.values());
  }

  /**
   * The ranges of a stream that hold any offset of {@code [startOffset, endOffset)}, in offset
   * order. The first may start before {@code startOffset} and the last end after {@code endOffset};
   * between them there is no hole unless the catalog has one.
   */
  public List<RangeLocation> covering(long streamId, long startOffset, long endOffset) {
    TreePMap<Long, RangeLocation> ranges = index.get(streamId);
    if (ranges == null || startOffset >= endOffset) {
      return List.of();
    }
    List<RangeLocation> found = new ArrayList<>();
    Map.Entry<Long, RangeLocation> floor = ranges.floorEntry(startOffset);
    if (floor != null && floor.getValue().endOffset() > startOffset) {
      found.add(floor.getValue());
    }
    found.addAll(ranges.subMap(startOffset, false, endOffset, false).values());
    return List.copyOf(found);
  }

  /** This catalog plus a new object; its id must be new and its ranges must not overlap. */
  public ObjectCatalog plus(CatalogObject object) {
    if (objects.containsKey(object.objectId())) {
      throw new IllegalStateException("object " + object.objectId() + " is already catalogued");
    }
    TreePMap<Long, TreePMap<Long, RangeLocation>> newIndex = index;
    for (CatalogRange range : object.ranges()) {
      newIndex = indexed(newIndex, object.objectId(), range);
    }
    return new ObjectCatalog(objects.plus(object.objectId(), object), newIndex);
  }

  /** This catalog without an object and its ranges; the object must be catalogued. */
  public ObjectCatalog minus(long objectId) {
    CatalogObject object = objects.get(objectId);
    if (object == null) {
      throw new IllegalStateException("object " + objectId + " is not catalogued");
    }
    TreePMap<Long, TreePMap<Long, RangeLocation>> newIndex = index;
    for (CatalogRange range : object.ranges()) {
      newIndex = unindexed(newIndex, range);
    }
    return new ObjectCatalog(objects.minus(objectId), newIndex);
  }

  /**
   * Detaches every range of a stream that ends at or before {@code newStartOffset}. Objects left
   * with no live range leave the catalog and are reported as unreachable, in id order.
   */
  public Detached trimStream(long streamId, long newStartOffset) {
    return detach(streamId, newStartOffset);
  }

  /** Detaches every range of a stream, as when the stream is deleted. */
  public Detached dropStream(long streamId) {
    return detach(streamId, Long.MAX_VALUE);
  }

  private Detached detach(long streamId, long endLimit) {
    TreePMap<Long, RangeLocation> ranges = index.get(streamId);
    if (ranges == null) {
      return new Detached(this, List.of());
    }
    // Ends are sorted with starts (no overlap), so the detached ranges are a prefix.
    TreeSet<Long> affected = new TreeSet<>();
    for (RangeLocation location : ranges.values()) {
      if (location.endOffset() > endLimit) {
        break;
      }
      affected.add(location.objectId());
    }
    TreePMap<Long, CatalogObject> newObjects = objects;
    TreePMap<Long, TreePMap<Long, RangeLocation>> newIndex = index;
    List<Long> unreachable = new ArrayList<>();
    for (long objectId : affected) {
      CatalogObject object = newObjects.get(objectId);
      List<CatalogRange> remaining = new ArrayList<>();
      for (CatalogRange range : object.ranges()) {
        if (range.streamId() == streamId && range.endOffset() <= endLimit) {
          newIndex = unindexed(newIndex, range);
        } else {
          remaining.add(range);
        }
      }
      if (remaining.isEmpty()) {
        newObjects = newObjects.minus(objectId);
        unreachable.add(objectId);
      } else {
        // Only a stream-set object can keep ranges after losing some: a stream object has one.
        newObjects = newObjects.plus(objectId, ((StreamSetObject) object).withRanges(remaining));
      }
    }
    return new Detached(new ObjectCatalog(newObjects, newIndex), unreachable);
  }

  private static TreePMap<Long, TreePMap<Long, RangeLocation>> indexed(
      TreePMap<Long, TreePMap<Long, RangeLocation>> index, long objectId, CatalogRange range) {
    TreePMap<Long, RangeLocation> ranges = index.getOrDefault(range.streamId(), TreePMap.empty());
    Map.Entry<Long, RangeLocation> floor = ranges.floorEntry(range.startOffset());
    Map.Entry<Long, RangeLocation> higher = ranges.higherEntry(range.startOffset());
    if ((floor != null && floor.getValue().endOffset() > range.startOffset())
        || (higher != null && higher.getValue().startOffset() < range.endOffset())) {
      throw new IllegalStateException(
          "object " + objectId + " range " + range + " overlaps a catalogued range");
    }
    RangeLocation location = new RangeLocation(objectId, range.startOffset(), range.endOffset());
    return index.plus(range.streamId(), ranges.plus(range.startOffset(), location));
  }

  private static TreePMap<Long, TreePMap<Long, RangeLocation>> unindexed(
      TreePMap<Long, TreePMap<Long, RangeLocation>> index, CatalogRange range) {
    TreePMap<Long, RangeLocation> ranges = index.get(range.streamId());
    TreePMap<Long, RangeLocation> rest = ranges.minus(range.startOffset());
    return rest.isEmpty() ? index.minus(range.streamId()) : index.plus(range.streamId(), rest);
  }

  /** Equal catalogs hold equal objects; the index is derived from them. */
  @Override
  public boolean equals(Object other) {
    return other instanceof ObjectCatalog catalog && objects.equals(catalog.objects);
  }

  @Override
  public int hashCode() {
    return objects.hashCode();
  }

  @Override
  public String toString() {
    return "ObjectCatalog[" + objects.size() + " objects, " + index.size() + " streams]";
  }
}
