package io.picomq.s3stream.object;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A finished data object, in memory, before it is stored.
 *
 * <p>Ownership: the holder owns {@link #bytes()} and releases it exactly once (typically after the
 * store's put completed).
 *
 * @param bytes the whole object as readable bytes
 * @param entries the index the object carries, in index order
 * @param streamRanges what the object holds, per stream ({@link StreamRange#of})
 * @param attributes the attribute word to record with the object in the metadata
 */
public record EncodedObject(
    ByteBuf bytes,
    List<IndexEntry> entries,
    List<StreamRange> streamRanges,
    ObjectAttributes attributes) {

  public EncodedObject {
    Objects.requireNonNull(bytes, "bytes");
    entries = List.copyOf(entries);
    streamRanges = List.copyOf(streamRanges);
    Objects.requireNonNull(attributes, "attributes");
  }

  /** Bytes of the object. */
  public long sizeBytes() {
    return bytes.readableBytes();
  }

  /**
   * Stores the object under {@code namespace.key(objectId)} and releases {@link #bytes()} once the
   * put completed, whatever its outcome; the caller must not use or release the bytes afterwards.
   *
   * @return completes when the object is durable, or with the store's error
   */
  public CompletableFuture<WrittenObject> putTo(
      ObjectStore store, ObjectNamespace namespace, long objectId) {
    String key;
    CompletableFuture<Void> stored;
    try {
      key = namespace.key(objectId);
      stored = store.put(key, bytes);
    } catch (RuntimeException e) {
      bytes.release();
      return CompletableFuture.failedFuture(e);
    }
    long sizeBytes = sizeBytes();
    return stored
        .whenComplete((ignored, error) -> bytes.release())
        .thenApply(
            ignored -> new WrittenObject(objectId, key, sizeBytes, attributes, streamRanges));
  }
}
