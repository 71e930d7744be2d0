package io.picomq.meta.apply;

import io.picomq.meta.command.Command.CleanDestroyedObjects;
import io.picomq.meta.command.Command.CompactStreamObjects;
import io.picomq.meta.command.Command.ExpirePreparedObjects;
import io.picomq.meta.command.Command.PrepareObjects;
import io.picomq.meta.state.CatalogObject;
import io.picomq.meta.state.CatalogStreamObject;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.ObjectCatalog;
import io.picomq.meta.state.StreamEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Object ids and garbage: prepare, expire, clean, and the merge of stream objects.
 *
 * <p>Garbage collection is two-phase. Whatever makes an object unreachable (trim, delete,
 * compaction, an expired preparation whose upload may exist) moves its id to the destruction queue
 * in the same command. The lease holder deletes the bytes, then proposes {@code
 * CleanDestroyedObjects}, which only forgets ids.
 */
final class ObjectTransitions {

  private ObjectTransitions() {}

  static Applied prepare(MetadataState state, PrepareObjects c) {
    long first = state.nextObjectId();
    MetadataState next = state;
    for (long id = first; id < first + c.count(); id++) {
      next = next.withPreparedObject(id, c.expiresAtMillis());
    }
    return Applied.ok(
        next.withNextObjectId(first + c.count()),
        new Outcome.ObjectsPrepared(first, c.count(), c.expiresAtMillis()));
  }

  static Applied expire(MetadataState state, ExpirePreparedObjects c) {
    List<Long> expired = new ArrayList<>();
    for (Map.Entry<Long, Long> prepared : state.preparedObjects().entrySet()) {
      if (prepared.getValue() <= c.nowMillis()) {
        expired.add(prepared.getKey());
      }
    }
    Outcome outcome = new Outcome.PreparedObjectsExpired(expired.size());
    if (expired.isEmpty()) {
      return Applied.redundant(state, outcome);
    }
    // The owner may have uploaded bytes under an expired id before giving up: delete them too.
    return Applied.ok(state.withoutPreparedObjects(expired).withDestroyed(expired), outcome);
  }

  static Applied clean(MetadataState state, CleanDestroyedObjects c) {
    List<Long> cleaned = new ArrayList<>();
    for (long id : c.objectIds()) {
      if (state.catalog().contains(id) || state.preparedObjects().containsKey(id)) {
        return Applied.rejected(
            state,
            RejectReason.OBJECT_STILL_REACHABLE,
            "object " + id + " is committed or prepared, not destroyed");
      }
      if (state.destructionQueue().contains(id)) {
        cleaned.add(id);
      }
    }
    Outcome outcome = new Outcome.DestroyedObjectsCleaned(cleaned.size());
    if (cleaned.isEmpty()) {
      return Applied.redundant(state, outcome);
    }
    return Applied.ok(state.withoutDestroyed(cleaned), outcome);
  }

  /**
   * Replaces stream objects by one: the sources must be live stream objects of the stream whose
   * ranges, sorted, are contiguous and span exactly the new object's {@code [start, end)}.
   */
  static Applied compactStreamObjects(MetadataState state, CompactStreamObjects c) {
    Optional<Applied> refused =
        NodeTransitions.refuseUnlessCurrent(state, c.nodeId(), c.nodeEpoch());
    if (refused.isPresent()) {
      return refused.get();
    }
    Outcome outcome = new Outcome.StreamObjectsCompacted(c.objectId());
    if (state.catalog().contains(c.objectId())) {
      return Applied.redundant(state, outcome);
    }
    if (!state.preparedObjects().containsKey(c.objectId())) {
      return notPrepared(state, c.objectId());
    }
    StreamEntry stream = state.streams().get(c.streamId());
    if (stream == null) {
      return StreamTransitions.unknownStream(state, c.streamId());
    }
    List<CatalogStreamObject> sources = new ArrayList<>();
    for (long sourceId : c.sourceObjectIds()) {
      Optional<CatalogObject> source = state.catalog().object(sourceId);
      if (source.isEmpty()
          || !(source.get() instanceof CatalogStreamObject object)
          || object.streamId() != c.streamId()) {
        return Applied.rejected(
            state,
            RejectReason.OBJECT_CONFLICT,
            "source " + sourceId + " is not a stream object of stream " + c.streamId());
      }
      sources.add(object);
    }
    sources.sort(Comparator.comparingLong(CatalogStreamObject::startOffset));
    long expected = c.startOffset();
    for (CatalogStreamObject source : sources) {
      if (source.startOffset() != expected) {
        return Applied.rejected(
            state,
            RejectReason.OFFSET_MISMATCH,
            "sources of object " + c.objectId() + " do not continue at offset " + expected);
      }
      expected = source.endOffset();
    }
    if (expected != c.endOffset()) {
      return Applied.rejected(
          state,
          RejectReason.OFFSET_MISMATCH,
          "sources of object " + c.objectId() + " end at " + expected + ", not " + c.endOffset());
    }
    ObjectCatalog catalog = state.catalog();
    for (CatalogStreamObject source : sources) {
      catalog = catalog.minus(source.objectId());
    }
    catalog =
        catalog.plus(
            new CatalogStreamObject(
                c.objectId(), c.streamId(), c.startOffset(), c.endOffset(), c.objectSizeBytes()));
    MetadataState next =
        state
            .withCatalog(catalog)
            .withoutPreparedObjects(List.of(c.objectId()))
            .withDestroyed(c.sourceObjectIds());
    return Applied.ok(next, outcome);
  }

  static Applied notPrepared(MetadataState state, long objectId) {
    return Applied.rejected(
        state,
        RejectReason.OBJECT_NOT_PREPARED,
        "object " + objectId + " was not prepared, or its preparation expired");
  }
}
