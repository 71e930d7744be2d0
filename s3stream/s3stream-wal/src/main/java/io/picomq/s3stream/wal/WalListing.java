package io.picomq.s3stream.wal;

import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.walobject.WalObjectCodec;
import io.picomq.s3stream.walobject.WalObjectKey;
import io.picomq.s3stream.walobject.WalObjectKeys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A node's WAL objects as one listing found them, sorted and split by the fencing rule into the
 * objects recovery may read and the ones it must ignore.
 *
 * <p>The fencing rule: for every epoch {@code E} present, its <em>fence point</em> {@code S_E} is
 * the lowest start offset among E's objects (a writer's first object is written before it
 * acknowledges anything, and is kept as long as the epoch writes). An object of an older epoch
 * whose range ends after {@code S_E} is dropped: a fenced writer stored it at or beyond the point
 * where the newer one took over. Worked example, objects as {@code epoch:[start, end)}:
 *
 * <pre>
 *   1:[0,64)  1:[64,128)  2:[128,192)  1:[128,192)  1:[192,256)  3:[192,256)
 *   S_2 = 128, S_3 = 192
 *   kept:    1:[0,64)  1:[64,128)  2:[128,192)  3:[192,256)
 *   dropped: 1:[128,192) (ends after S_2)  1:[192,256) (ends after S_2 and S_3)
 * </pre>
 *
 * (Offsets in the example are in units of 2^20; real objects are aligned to 64 MiB.) After
 * dropping, no two kept objects overlap, so the kept list in {@code (epoch, start)} order is also
 * in offset order.
 *
 * @param kept objects recovery may read, ascending {@code (epoch, start)}
 * @param dropped objects of fenced writers, to be ignored and deleted
 * @param newestEpoch the highest epoch seen, if any object was found
 * @param endOffset where the WAL address space used so far ends: the highest end offset of any
 *     object found, rounded up to the alignment unit; 0 for an empty WAL
 */
record WalListing(
    List<ListedObject> kept,
    List<ListedObject> dropped,
    Optional<Long> newestEpoch,
    long endOffset) {

  private static final Comparator<ListedObject> BY_EPOCH_THEN_START =
      Comparator.comparingLong(ListedObject::epoch).thenComparingLong(ListedObject::startOffset);

  WalListing {
    kept = List.copyOf(kept);
    dropped = List.copyOf(dropped);
  }

  /** Parses a listing of {@code nodePrefix}; keys that are not WAL object keys are ignored. */
  static WalListing of(String nodePrefix, List<ObjectInfo> listing) {
    List<ListedObject> objects = new ArrayList<>();
    for (ObjectInfo info : listing) {
      Optional<WalObjectKey> key = WalObjectKeys.parse(nodePrefix, info.key());
      key.ifPresent(k -> objects.add(new ListedObject(k, info.sizeBytes())));
    }
    objects.sort(BY_EPOCH_THEN_START);
    List<ListedObject> kept = new ArrayList<>();
    List<ListedObject> dropped = new ArrayList<>();
    // Walk from the newest epoch down, carrying the lowest fence point of all newer epochs.
    long lowestNewerFence = Long.MAX_VALUE;
    int i = objects.size() - 1;
    while (i >= 0) {
      long epoch = objects.get(i).epoch();
      long fence = Long.MAX_VALUE;
      for (; i >= 0 && objects.get(i).epoch() == epoch; i--) {
        ListedObject object = objects.get(i);
        fence = Math.min(fence, object.startOffset());
        (object.endOffset() > lowestNewerFence ? dropped : kept).add(object);
      }
      lowestNewerFence = Math.min(lowestNewerFence, fence);
    }
    kept.sort(BY_EPOCH_THEN_START);
    dropped.sort(BY_EPOCH_THEN_START);
    long end = 0;
    for (ListedObject object : objects) {
      end = Math.max(end, object.endOffset());
    }
    long alignedEnd =
        Math.ceilDiv(end, WalObjectCodec.ALIGNMENT_BYTES) * WalObjectCodec.ALIGNMENT_BYTES;
    Optional<Long> newest =
        objects.isEmpty() ? Optional.empty() : Optional.of(objects.getLast().epoch());
    return new WalListing(kept, dropped, newest, alignedEnd);
  }

  /** Every object found, kept or dropped. */
  List<ListedObject> all() {
    List<ListedObject> all = new ArrayList<>(kept);
    all.addAll(dropped);
    return all;
  }
}
