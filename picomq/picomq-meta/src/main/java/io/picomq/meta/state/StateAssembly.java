package io.picomq.meta.state;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.pcollections.TreePMap;
import org.pcollections.TreePSet;

/**
 * Builds a {@link MetadataState} from primary data and checks every invariant apply maintains.
 * Restoring a snapshot goes through here, so a snapshot that decodes but describes an impossible
 * state is refused instead of forking this node from the others.
 */
final class StateAssembly {

  private StateAssembly() {}

  static MetadataState assemble(
      long nextStreamId,
      long nextObjectId,
      Collection<NodeRecord> nodes,
      SortedMap<Long, StreamEntry> streams,
      Collection<? extends CatalogObject> objects,
      SortedMap<Long, Long> preparedObjects,
      SortedSet<Long> destructionQueue,
      Collection<PendingTransfer> pendingTransfers,
      SortedMap<String, KvValue> kv) {
    check(nextStreamId >= 0 && nextObjectId >= 0, "id counters must be >= 0");
    TreeMap<Integer, NodeRecord> nodeMap = new TreeMap<>();
    for (NodeRecord node : nodes) {
      check(
          nodeMap.put(node.nodeId(), node.withPlacedStreams(0)) == null,
          "node " + node.nodeId() + " appears twice");
    }
    for (Map.Entry<Long, StreamEntry> entry : streams.entrySet()) {
      StreamEntry stream = entry.getValue();
      check(entry.getKey() == stream.streamId(), "stream key " + entry.getKey() + " mismatch");
      check(stream.streamId() < nextStreamId, "stream " + stream.streamId() + " >= next id");
      if (stream.isPlaced()) {
        NodeRecord node = nodeMap.get(stream.nodeId());
        check(node != null, "stream " + stream.streamId() + " on unknown node " + stream.nodeId());
        nodeMap.put(node.nodeId(), node.withPlacedStreams(node.placedStreams() + 1));
      }
    }
    ObjectCatalog catalog = catalog(objects, nextObjectId, nodeMap, streams);
    for (StreamEntry stream : streams.values()) {
      checkCoverage(stream, catalog.ranges(stream.streamId()));
    }
    checkObjectIds(nextObjectId, catalog, preparedObjects, destructionQueue);
    TreeMap<Long, PendingTransfer> transfers = new TreeMap<>();
    for (PendingTransfer transfer : pendingTransfers) {
      checkTransfer(transfer, streams, nodeMap);
      check(transfers.put(transfer.streamId(), transfer) == null, "transfer appears twice");
    }
    for (Map.Entry<String, KvValue> entry : kv.entrySet()) {
      check(entry.getKey() != null && entry.getValue() != null, "null KV key or value");
    }
    return MetadataState.of(
        nextStreamId,
        nextObjectId,
        TreePMap.fromSortedMap(nodeMap),
        MetadataState.sortedCopy(streams),
        catalog,
        MetadataState.sortedCopy(preparedObjects),
        TreePSet.fromSortedSet(new TreeSet<>(destructionQueue)),
        TreePMap.fromSortedMap(transfers),
        MetadataState.sortedCopy(kv));
  }

  private static ObjectCatalog catalog(
      Collection<? extends CatalogObject> objects,
      long nextObjectId,
      Map<Integer, NodeRecord> nodes,
      SortedMap<Long, StreamEntry> streams) {
    for (CatalogObject object : objects) {
      check(object.objectId() < nextObjectId, "object " + object.objectId() + " >= next id");
      if (object instanceof StreamSetObject set) {
        check(nodes.containsKey(set.nodeId()), "object " + set.objectId() + " from unknown node");
      }
      for (CatalogRange range : object.ranges()) {
        check(
            streams.containsKey(range.streamId()),
            "object " + object.objectId() + " holds unknown stream " + range.streamId());
      }
    }
    try {
      return ObjectCatalog.of(objects);
    } catch (IllegalStateException overlap) {
      throw new IllegalArgumentException(overlap.getMessage(), overlap);
    }
  }

  /**
   * A stream's live ranges are contiguous, the first holds its start offset and the last ends at
   * its end offset; a stream with no range is empty (start == end).
   */
  private static void checkCoverage(StreamEntry stream, List<RangeLocation> ranges) {
    String name = "stream " + stream.streamId();
    if (ranges.isEmpty()) {
      check(stream.startOffset() == stream.endOffset(), name + " has offsets but no objects");
      return;
    }
    RangeLocation first = ranges.get(0);
    check(
        first.startOffset() <= stream.startOffset() && stream.startOffset() < first.endOffset(),
        name + " start offset is not in its first range");
    for (int i = 1; i < ranges.size(); i++) {
      check(
          ranges.get(i - 1).endOffset() == ranges.get(i).startOffset(),
          name + " has a hole before offset " + ranges.get(i).startOffset());
    }
    check(
        ranges.get(ranges.size() - 1).endOffset() == stream.endOffset(),
        name + " end offset is not the end of its last range");
  }

  private static void checkObjectIds(
      long nextObjectId,
      ObjectCatalog catalog,
      SortedMap<Long, Long> prepared,
      SortedSet<Long> destroyed) {
    for (long id : prepared.keySet()) {
      check(id >= 0 && id < nextObjectId, "prepared object " + id + " out of range");
      check(!catalog.contains(id), "prepared object " + id + " is also committed");
    }
    for (long id : destroyed) {
      check(id >= 0 && id < nextObjectId, "destroyed object " + id + " out of range");
      check(!catalog.contains(id), "destroyed object " + id + " is still catalogued");
      check(!prepared.containsKey(id), "destroyed object " + id + " is still prepared");
    }
  }

  private static void checkTransfer(
      PendingTransfer transfer, SortedMap<Long, StreamEntry> streams, Map<Integer, ?> nodes) {
    StreamEntry stream = streams.get(transfer.streamId());
    String name = "transfer of stream " + transfer.streamId();
    check(stream != null, name + ": no such stream");
    check(stream.nodeId() == transfer.fromNodeId(), name + ": stream is not on its source");
    check(stream.epoch() == transfer.epoch(), name + ": stream moved past its epoch");
    check(nodes.containsKey(transfer.toNodeId()), name + ": unknown target node");
    check(transfer.toNodeId() != transfer.fromNodeId(), name + ": target is the source");
  }

  private static void check(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }
}
