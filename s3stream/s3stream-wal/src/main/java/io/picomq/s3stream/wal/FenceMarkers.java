package io.picomq.s3stream.wal;

import io.picomq.s3stream.objectstore.ObjectInfo;
import java.util.List;
import java.util.OptionalLong;

/**
 * Fence markers: one empty object per epoch at {@code {nodePrefix}fence/{epoch}}, written by a
 * starting writer before it lists the WAL. They live under their own small prefix so that a writer
 * can ask "has a newer epoch started?" with a LIST that returns a handful of keys, however many WAL
 * objects the node holds. WAL object keys ({@code {nodePrefix}{epoch}/wal/...}) never start with
 * {@code fence/}, so recovery's listing ignores markers as foreign keys.
 */
final class FenceMarkers {

  private static final String SEGMENT = "fence/";

  private FenceMarkers() {}

  /** The prefix every marker of the node lives under. */
  static String prefix(String nodePrefix) {
    return nodePrefix + SEGMENT;
  }

  /** The marker of {@code epoch}. */
  static String key(String nodePrefix, long epoch) {
    return prefix(nodePrefix) + epoch;
  }

  /** The epoch a marker key names, or -1 when the key is not a marker of this node. */
  static long epochOf(String nodePrefix, String key) {
    String prefix = prefix(nodePrefix);
    if (!key.startsWith(prefix)) {
      return -1;
    }
    String digits = key.substring(prefix.length());
    if (digits.isEmpty()
        || digits.length() > 18
        || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return -1;
    }
    return Long.parseLong(digits);
  }

  /** The highest epoch among the markers in {@code listing}, if any. */
  static OptionalLong newestEpoch(String nodePrefix, List<ObjectInfo> listing) {
    return listing.stream()
        .mapToLong(info -> epochOf(nodePrefix, info.key()))
        .filter(epoch -> epoch >= 0)
        .max();
  }

  /** The keys of the markers in {@code listing} of epochs below {@code epoch}. */
  static List<String> olderThan(String nodePrefix, List<ObjectInfo> listing, long epoch) {
    return listing.stream()
        .map(ObjectInfo::key)
        .filter(
            key -> {
              long e = epochOf(nodePrefix, key);
              return e >= 0 && e < epoch;
            })
        .toList();
  }
}
