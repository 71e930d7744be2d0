package io.picomq.meta.state;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import org.pcollections.PSortedMap;
import org.pcollections.PSortedSet;
import org.pcollections.TreePMap;
import org.pcollections.TreePSet;

/**
 * The whole cluster metadata at one applied position of the command log: an immutable value.
 *
 * <p>Every "with" method returns a new state that shares all untouched structure with this one
 * (persistent maps), so keeping the previous state as a published view costs nothing. Equal states
 * are {@link #equals equal}, whatever sequence of changes produced them; the snapshot codec relies
 * on that and on every map being sorted.
 *
 * <p>The state keeps its derived data in step itself: {@link NodeRecord#placedStreams()} follows
 * {@link #withStream} and {@link #withoutStream}, and the catalog's index follows its objects.
 * {@link #assemble} rebuilds both from the primary data and checks every cross-reference, which is
 * how a snapshot is restored.
 */
public final class MetadataState {

  private static final MetadataState EMPTY =
      new MetadataState(
          0,
          0,
          TreePMap.empty(),
          TreePMap.empty(),
          ObjectCatalog.empty(),
          TreePMap.empty(),
          TreePSet.empty(),
          TreePMap.empty(),
          TreePMap.empty());

  private final long nextStreamId;
  private final long nextObjectId;
  private final TreePMap<Integer, NodeRecord> nodes;
  private final TreePMap<Long, StreamEntry> streams;
  private final ObjectCatalog catalog;
  private final TreePMap<Long, Long> preparedObjects;
  private final TreePSet<Long> destructionQueue;
  private final TreePMap<Long, PendingTransfer> pendingTransfers;
  private final TreePMap<String, KvValue> kv;

  private MetadataState(
      long nextStreamId,
      long nextObjectId,
      TreePMap<Integer, NodeRecord> nodes,
      TreePMap<Long, StreamEntry> streams,
      ObjectCatalog catalog,
      TreePMap<Long, Long> preparedObjects,
      TreePSet<Long> destructionQueue,
      TreePMap<Long, PendingTransfer> pendingTransfers,
      TreePMap<String, KvValue> kv) {
    this.nextStreamId = nextStreamId;
    this.nextObjectId = nextObjectId;
    this.nodes = nodes;
    this.streams = streams;
    this.catalog = catalog;
    this.preparedObjects = preparedObjects;
    this.destructionQueue = destructionQueue;
    this.pendingTransfers = pendingTransfers;
    this.kv = kv;
  }

  /** The state before the first command: no nodes, no streams, id counters at zero. */
  public static MetadataState empty() {
    return EMPTY;
  }

  /**
   * A state from its primary data, with derived data recomputed and every invariant checked: ids
   * below their counters, streams on registered nodes, objects covering each stream's offsets
   * without holes or overlaps, transfers matching their streams.
   *
   * @param nodes registrations; their {@code placedStreams} is ignored and recomputed
   * @throws IllegalArgumentException naming the first inconsistency found
   */
  public static MetadataState assemble(
      long nextStreamId,
      long nextObjectId,
      Collection<NodeRecord> nodes,
      SortedMap<Long, StreamEntry> streams,
      Collection<? extends CatalogObject> objects,
      SortedMap<Long, Long> preparedObjects,
      SortedSet<Long> destructionQueue,
      Collection<PendingTransfer> pendingTransfers,
      SortedMap<String, KvValue> kv) {
    return StateAssembly.assemble(
        nextStreamId,
        nextObjectId,
        nodes,
        streams,
        objects,
        preparedObjects,
        destructionQueue,
        pendingTransfers,
        kv);
  }

  static MetadataState of(
      long nextStreamId,
      long nextObjectId,
      TreePMap<Integer, NodeRecord> nodes,
      TreePMap<Long, StreamEntry> streams,
      ObjectCatalog catalog,
      TreePMap<Long, Long> preparedObjects,
      TreePSet<Long> destructionQueue,
      TreePMap<Long, PendingTransfer> pendingTransfers,
      TreePMap<String, KvValue> kv) {
    return new MetadataState(
        nextStreamId,
        nextObjectId,
        nodes,
        streams,
        catalog,
        preparedObjects,
        destructionQueue,
        pendingTransfers,
        kv);
  }

  // ---- reading ----

  /** The id the next created stream gets; ids are never reused. */
  public long nextStreamId() {
    return nextStreamId;
  }

  /** The id the next prepared object gets; ids are never reused. */
  public long nextObjectId() {
    return nextObjectId;
  }

  public PSortedMap<Integer, NodeRecord> nodes() {
    return nodes;
  }

  public Optional<NodeRecord> node(int nodeId) {
    return Optional.ofNullable(nodes.get(nodeId));
  }

  public PSortedMap<Long, StreamEntry> streams() {
    return streams;
  }

  public Optional<StreamEntry> stream(long streamId) {
    return Optional.ofNullable(streams.get(streamId));
  }

  /** True for an id that was allocated once and is gone now: the stream was deleted. */
  public boolean wasDeleted(long streamId) {
    return streamId >= 0 && streamId < nextStreamId && !streams.containsKey(streamId);
  }

  public ObjectCatalog catalog() {
    return catalog;
  }

  /** See {@link ObjectCatalog#covering}. */
  public List<RangeLocation> objectsCovering(long streamId, long startOffset, long endOffset) {
    return catalog.covering(streamId, startOffset, endOffset);
  }

  /** Object ids handed out but not committed yet, with the proposer's expiry time for each. */
  public PSortedMap<Long, Long> preparedObjects() {
    return preparedObjects;
  }

  /** Ids of objects no stream can reach any more, whose bytes the lease holder must delete. */
  public PSortedSet<Long> destructionQueue() {
    return destructionQueue;
  }

  public PSortedMap<Long, PendingTransfer> pendingTransfers() {
    return pendingTransfers;
  }

  public Optional<PendingTransfer> pendingTransfer(long streamId) {
    return Optional.ofNullable(pendingTransfers.get(streamId));
  }

  public PSortedMap<String, KvValue> kv() {
    return kv;
  }

  public Optional<KvValue> kvValue(String key) {
    return Optional.ofNullable(kv.get(key));
  }

  // ---- changing (each returns a new state) ----

  public MetadataState withNextStreamId(long next) {
    return of(
        next,
        nextObjectId,
        nodes,
        streams,
        catalog,
        preparedObjects,
        destructionQueue,
        pendingTransfers,
        kv);
  }

  public MetadataState withNextObjectId(long next) {
    return of(
        nextStreamId,
        next,
        nodes,
        streams,
        catalog,
        preparedObjects,
        destructionQueue,
        pendingTransfers,
        kv);
  }

  /**
   * Registers a node, or records a new process (epoch, address, slots) of a known one; a process in
   * good standing.
   */
  public MetadataState withNode(int nodeId, long nodeEpoch, String advertisedAddress, int slots) {
    NodeRecord existing = nodes.get(nodeId);
    long placed = existing == null ? 0 : existing.placedStreams();
    return withNodes(
        nodes.plus(nodeId, new NodeRecord(nodeId, nodeEpoch, advertisedAddress, slots, placed)));
  }

  public MetadataState withNodeSlots(int nodeId, int slots) {
    NodeRecord node = requireNode(nodeId);
    return withNodes(
        nodes.plus(
            nodeId,
            new NodeRecord(
                nodeId,
                node.nodeEpoch(),
                node.advertisedAddress(),
                slots,
                node.placedStreams(),
                node.takerNodeId())));
  }

  /** The node's current process, taken over by {@code takerNodeId}. */
  public MetadataState withNodeTakenOver(int nodeId, int takerNodeId) {
    return withNodes(nodes.plus(nodeId, requireNode(nodeId).withTaker(takerNodeId)));
  }

  /** Adds or replaces a stream, moving its placement count if it changed node. */
  public MetadataState withStream(StreamEntry stream) {
    StreamEntry previous = streams.get(stream.streamId());
    TreePMap<Integer, NodeRecord> newNodes = nodes;
    int fromNode = previous == null ? StreamEntry.UNPLACED : previous.nodeId();
    if (fromNode != stream.nodeId()) {
      newNodes = countPlacement(countPlacement(newNodes, fromNode, -1), stream.nodeId(), +1);
    }
    return of(
        nextStreamId,
        nextObjectId,
        newNodes,
        streams.plus(stream.streamId(), stream),
        catalog,
        preparedObjects,
        destructionQueue,
        pendingTransfers,
        kv);
  }

  public MetadataState withoutStream(long streamId) {
    StreamEntry previous = streams.get(streamId);
    if (previous == null) {
      throw new IllegalStateException("stream " + streamId + " does not exist");
    }
    return of(
        nextStreamId,
        nextObjectId,
        countPlacement(nodes, previous.nodeId(), -1),
        streams.minus(streamId),
        catalog,
        preparedObjects,
        destructionQueue,
        pendingTransfers,
        kv);
  }

  public MetadataState withCatalog(ObjectCatalog newCatalog) {
    return of(
        nextStreamId,
        nextObjectId,
        nodes,
        streams,
        newCatalog,
        preparedObjects,
        destructionQueue,
        pendingTransfers,
        kv);
  }

  public MetadataState withPreparedObject(long objectId, long expiresAtMillis) {
    return withPrepared(preparedObjects.plus(objectId, expiresAtMillis));
  }

  public MetadataState withoutPreparedObjects(Collection<Long> objectIds) {
    return withPrepared(preparedObjects.minusAll(objectIds));
  }

  public MetadataState withDestroyed(Collection<Long> objectIds) {
    return withDestructionQueue(destructionQueue.plusAll(objectIds));
  }

  public MetadataState withoutDestroyed(Collection<Long> objectIds) {
    return withDestructionQueue(destructionQueue.minusAll(objectIds));
  }

  public MetadataState withPendingTransfer(PendingTransfer transfer) {
    return withTransfers(pendingTransfers.plus(transfer.streamId(), transfer));
  }

  public MetadataState withoutPendingTransfer(long streamId) {
    return withTransfers(pendingTransfers.minus(streamId));
  }

  public MetadataState withKv(String key, KvValue value) {
    return withKvMap(kv.plus(key, value));
  }

  public MetadataState withoutKv(String key) {
    return withKvMap(kv.minus(key));
  }

  private NodeRecord requireNode(int nodeId) {
    NodeRecord node = nodes.get(nodeId);
    if (node == null) {
      throw new IllegalStateException("node " + nodeId + " is not registered");
    }
    return node;
  }

  private static TreePMap<Integer, NodeRecord> countPlacement(
      TreePMap<Integer, NodeRecord> nodes, int nodeId, int delta) {
    if (nodeId == StreamEntry.UNPLACED) {
      return nodes;
    }
    NodeRecord node = nodes.get(nodeId);
    if (node == null) {
      throw new IllegalStateException("stream placed on unregistered node " + nodeId);
    }
    return nodes.plus(nodeId, node.withPlacedStreams(node.placedStreams() + delta));
  }

  private MetadataState withNodes(TreePMap<Integer, NodeRecord> newNodes) {
    return of(
        nextStreamId,
        nextObjectId,
        newNodes,
        streams,
        catalog,
        preparedObjects,
        destructionQueue,
        pendingTransfers,
        kv);
  }

  private MetadataState withPrepared(TreePMap<Long, Long> newPrepared) {
    return of(
        nextStreamId,
        nextObjectId,
        nodes,
        streams,
        catalog,
        newPrepared,
        destructionQueue,
        pendingTransfers,
        kv);
  }

  private MetadataState withDestructionQueue(TreePSet<Long> newQueue) {
    return of(
        nextStreamId,
        nextObjectId,
        nodes,
        streams,
        catalog,
        preparedObjects,
        newQueue,
        pendingTransfers,
        kv);
  }

  private MetadataState withTransfers(TreePMap<Long, PendingTransfer> newTransfers) {
    return of(
        nextStreamId,
        nextObjectId,
        nodes,
        streams,
        catalog,
        preparedObjects,
        destructionQueue,
        newTransfers,
        kv);
  }

  private MetadataState withKvMap(TreePMap<String, KvValue> newKv) {
    return of(
        nextStreamId,
        nextObjectId,
        nodes,
        streams,
        catalog,
        preparedObjects,
        destructionQueue,
        pendingTransfers,
        newKv);
  }

  static <K, V> TreePMap<K, V> sortedCopy(SortedMap<K, V> map) {
    return TreePMap.fromSortedMap(new TreeMap<>(map));
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof MetadataState that
        && nextStreamId == that.nextStreamId
        && nextObjectId == that.nextObjectId
        && nodes.equals(that.nodes)
        && streams.equals(that.streams)
        && catalog.equals(that.catalog)
        && preparedObjects.equals(that.preparedObjects)
        && destructionQueue.equals(that.destructionQueue)
        && pendingTransfers.equals(that.pendingTransfers)
        && kv.equals(that.kv);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        nextStreamId,
        nextObjectId,
        nodes,
        streams,
        catalog,
        preparedObjects,
        destructionQueue,
        pendingTransfers,
        kv);
  }

  @Override
  public String toString() {
    return "MetadataState[nextStreamId="
        + nextStreamId
        + ", nextObjectId="
        + nextObjectId
        + ", nodes="
        + nodes.size()
        + ", streams="
        + streams.size()
        + ", objects="
        + catalog.size()
        + ", prepared="
        + preparedObjects.size()
        + ", destroyed="
        + destructionQueue.size()
        + ", transfers="
        + pendingTransfers.size()
        + ", keys="
        + kv.size()
        + "]";
  }
}
