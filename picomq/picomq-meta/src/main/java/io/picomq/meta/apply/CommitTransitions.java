package io.picomq.meta.apply;

import io.picomq.meta.command.Command.CommitStreamSetObject;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.command.NewStreamObject;
import io.picomq.meta.state.CatalogObject;
import io.picomq.meta.state.CatalogRange;
import io.picomq.meta.state.CatalogStreamObject;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.ObjectCatalog;
import io.picomq.meta.state.StreamEntry;
import io.picomq.meta.state.StreamSetObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Committing a stream-set object with its stream objects: new data from a node's WAL, or the result
 * of compacting stream-set objects.
 *
 * <p>Ranges of a stream that was deleted while its data was in flight are dropped, not refused: the
 * node cannot take back what it uploaded, and refusing would block its other streams. Objects left
 * with no live range go straight to the destruction queue.
 */
final class CommitTransitions {

  private CommitTransitions() {}

  static Applied commit(MetadataState state, CommitStreamSetObject c) {
    Optional<Applied> refused =
        NodeTransitions.refuseUnlessCurrent(state, c.nodeId(), c.nodeEpoch());
    if (refused.isPresent()) {
      return refused.get();
    }
    Outcome outcome = new Outcome.StreamSetObjectCommitted(c.objectId());
    // Object ids are single-use: one already in the catalog means this commit applied before.
    for (long id : c.newObjectIds()) {
      if (state.catalog().contains(id)) {
        return Applied.redundant(state, outcome);
      }
    }
    for (long id : c.newObjectIds()) {
      if (!state.preparedObjects().containsKey(id)) {
        return ObjectTransitions.notPrepared(state, id);
      }
    }
    TreeMap<Long, List<CommittedRange>> byStream = rangesByStream(c);
    for (Map.Entry<Long, List<CommittedRange>> entry : byStream.entrySet()) {
      long streamId = entry.getKey();
      if (!state.streams().containsKey(streamId) && !state.wasDeleted(streamId)) {
        return StreamTransitions.unknownStream(state, streamId);
      }
      List<CommittedRange> ranges = entry.getValue();
      for (int i = 1; i < ranges.size(); i++) {
        if (ranges.get(i - 1).endOffset() > ranges.get(i).startOffset()) {
          return Applied.rejected(
              state,
              RejectReason.OFFSET_MISMATCH,
              "the commit holds offset " + ranges.get(i).startOffset() + " twice in " + streamId);
        }
      }
    }
    return c.isCompaction()
        ? replaceSources(state, c, byStream, outcome)
        : appendNewData(state, c, byStream, outcome);
  }

  /**
   * New data: each stream's ranges must be fenced by its current epoch, come from its node (or the
   * node that took its node over, recovering the WAL), be contiguous and start exactly at its end
   * offset. A commit entirely below every end offset is a repeat (redundant); one partly below is
   * refused.
   */
  private static Applied appendNewData(
      MetadataState state,
      CommitStreamSetObject c,
      TreeMap<Long, List<CommittedRange>> byStream,
      Outcome outcome) {
    boolean repeated = false;
    TreeMap<Long, Long> newEnds = new TreeMap<>();
    for (Map.Entry<Long, List<CommittedRange>> entry : byStream.entrySet()) {
      StreamEntry stream = state.streams().get(entry.getKey());
      if (stream == null) {
        continue; // deleted: dropped below
      }
      List<CommittedRange> ranges = entry.getValue();
      for (CommittedRange range : ranges) {
        if (range.epoch() != stream.epoch()) {
          return StreamTransitions.fenced(state, stream, range.epoch());
        }
      }
      if (!NodeTransitions.actsFor(state, c.nodeId(), stream.nodeId())) {
        return StreamTransitions.notOwner(state, stream, c.nodeId());
      }
      for (int i = 1; i < ranges.size(); i++) {
        if (ranges.get(i - 1).endOffset() != ranges.get(i).startOffset()) {
          return Applied.rejected(
              state,
              RejectReason.OFFSET_MISMATCH,
              "the commit skips offsets "
                  + ranges.get(i - 1).endOffset()
                  + ".."
                  + ranges.get(i).startOffset()
                  + " of stream "
                  + stream.streamId());
        }
      }
      long first = ranges.get(0).startOffset();
      long last = ranges.get(ranges.size() - 1).endOffset();
      if (last <= stream.endOffset()) {
        repeated = true;
      } else if (first == stream.endOffset()) {
        newEnds.put(stream.streamId(), last);
      } else {
        return gap(state, stream, first);
      }
    }
    if (repeated && !newEnds.isEmpty()) {
      return Applied.rejected(
          state,
          RejectReason.OFFSET_MISMATCH,
          "the commit repeats data of some streams and adds data to others");
    }
    if (repeated) {
      return Applied.redundant(state, outcome);
    }
    MetadataState next = catalogued(state, c);
    for (Map.Entry<Long, Long> end : newEnds.entrySet()) {
      next = next.withStream(next.streams().get(end.getKey()).withEndOffset(end.getValue()));
    }
    return Applied.ok(next, outcome);
  }

  /**
   * Compaction: the sources must be catalogued stream-set objects, and for every live stream the
   * new objects must hold exactly the offsets the sources hold at or above the stream's start
   * offset. Below the start offset they may hold more (data trimmed while the compaction ran);
   * ranges entirely below it are dropped.
   *
   * <p>Why this keeps the index free of overlaps: only the range holding a stream's start offset
   * reaches below it, so a new range that reaches below the start also holds the start offset,
   * which then belongs to a source; no other live range lies below it to collide with.
   */
  private static Applied replaceSources(
      MetadataState state,
      CommitStreamSetObject c,
      TreeMap<Long, List<CommittedRange>> byStream,
      Outcome outcome) {
    TreeMap<Long, List<Span>> held = new TreeMap<>();
    for (long sourceId : c.compactedObjectIds()) {
      Optional<CatalogObject> source = state.catalog().object(sourceId);
      if (source.isEmpty() || !(source.get() instanceof StreamSetObject)) {
        return Applied.rejected(
            state,
            RejectReason.OBJECT_CONFLICT,
            "compaction source " + sourceId + " is not a catalogued stream-set object");
      }
      for (CatalogRange range : source.get().ranges()) {
        held.computeIfAbsent(range.streamId(), id -> new ArrayList<>())
            .add(new Span(range.startOffset(), range.endOffset()));
      }
    }
    TreeMap<Long, List<Span>> produced = new TreeMap<>();
    byStream.forEach(
        (streamId, ranges) ->
            produced.put(
                streamId,
                ranges.stream().map(r -> new Span(r.startOffset(), r.endOffset())).toList()));
    TreeMap<Long, List<Span>> streams = new TreeMap<>(held);
    produced.forEach(streams::putIfAbsent);
    for (long streamId : streams.keySet()) {
      StreamEntry stream = state.streams().get(streamId);
      if (stream == null) {
        continue; // deleted: sources hold none of it any more, new ranges are dropped
      }
      List<Span> before = liveUnion(held.get(streamId), stream);
      List<Span> after = liveUnion(produced.get(streamId), stream);
      if (!before.equals(after)) {
        return Applied.rejected(
            state,
            RejectReason.OFFSET_MISMATCH,
            "compaction changes the live offsets of stream "
                + streamId
                + ": "
                + before
                + " -> "
                + after);
      }
    }
    ObjectCatalog catalog = state.catalog();
    for (long sourceId : c.compactedObjectIds()) {
      catalog = catalog.minus(sourceId);
    }
    MetadataState withoutSources = state.withCatalog(catalog).withDestroyed(c.compactedObjectIds());
    return Applied.ok(catalogued(withoutSources, c), outcome);
  }

  private static List<Span> liveUnion(List<Span> spans, StreamEntry stream) {
    return spans == null ? List.of() : Span.from(Span.union(spans), stream.startOffset());
  }

  /**
   * The state with the commit's objects catalogued, keeping for each object only its ranges of
   * existing streams that end above the stream's start offset (always true for new data). An object
   * left with no range goes to the destruction queue; the new ids leave the prepared set.
   */
  private static MetadataState catalogued(MetadataState state, CommitStreamSetObject c) {
    ObjectCatalog catalog = state.catalog();
    List<Long> destroyed = new ArrayList<>();
    if (c.objectId() != CommitStreamSetObject.NO_OBJECT) {
      List<CatalogRange> live = new ArrayList<>();
      for (CommittedRange range : c.ranges()) {
        if (isLive(state, range.streamId(), range.endOffset())) {
          live.add(new CatalogRange(range.streamId(), range.startOffset(), range.endOffset()));
        }
      }
      if (live.isEmpty()) {
        destroyed.add(c.objectId());
      } else {
        catalog =
            catalog.plus(new StreamSetObject(c.objectId(), c.nodeId(), c.objectSizeBytes(), live));
      }
    }
    for (NewStreamObject object : c.streamObjects()) {
      if (isLive(state, object.streamId(), object.endOffset())) {
        catalog =
            catalog.plus(
                new CatalogStreamObject(
                    object.objectId(),
                    object.streamId(),
                    object.startOffset(),
                    object.endOffset(),
                    object.objectSizeBytes()));
      } else {
        destroyed.add(object.objectId());
      }
    }
    return state
        .withCatalog(catalog)
        .withoutPreparedObjects(c.newObjectIds())
        .withDestroyed(destroyed);
  }

  private static boolean isLive(MetadataState state, long streamId, long endOffset) {
    StreamEntry stream = state.streams().get(streamId);
    return stream != null && endOffset > stream.startOffset();
  }

  /** The stream-set object's ranges and the stream objects, per stream, sorted by offset. */
  private static TreeMap<Long, List<CommittedRange>> rangesByStream(CommitStreamSetObject c) {
    TreeMap<Long, List<CommittedRange>> byStream = new TreeMap<>();
    for (CommittedRange range : c.ranges()) {
      byStream.computeIfAbsent(range.streamId(), id -> new ArrayList<>()).add(range);
    }
    for (NewStreamObject object : c.streamObjects()) {
      byStream
          .computeIfAbsent(object.streamId(), id -> new ArrayList<>())
          .add(
              new CommittedRange(
                  object.streamId(), object.epoch(), object.startOffset(), object.endOffset()));
    }
    byStream.values().forEach(ranges -> ranges.sort(Comparator.naturalOrder()));
    return byStream;
  }

  private static Applied gap(MetadataState state, StreamEntry stream, long offset) {
    return Applied.rejected(
        state,
        RejectReason.OFFSET_MISMATCH,
        "stream "
            + stream.streamId()
            + " ends at "
            + stream.endOffset()
            + "; the commit does not continue there (offset "
            + offset
            + ")");
  }
}
