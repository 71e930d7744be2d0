package io.picomq.s3stream.api;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The object catalog in the metadata plane, implemented by the host. Every future completes; a
 * refusal fails it with {@link MetadataRejectedException}.
 */
public interface ObjectManager {

  /**
   * Reserves {@code count} consecutive object ids and returns the first. Ids never committed within
   * {@code ttl} expire and their bytes are collected.
   */
  CompletableFuture<Long> prepareObjects(int count, Duration ttl);

  /** Commits an upload atomically and advances the end offsets of the streams it covers. */
  CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request);

  /** Replaces stream objects of one stream by one merged stream object, atomically. */
  CompletableFuture<Void> compactStreamObject(CompactStreamObjectRequest request);

  /**
   * Committed objects holding offsets of {@code [startOffset, endOffset)} of the stream, in offset
   * order, at most {@code limit}; {@code endOffset == -1} means up to the committed end.
   */
  CompletableFuture<List<ObjectMetadata>> getObjects(
      long streamId, long startOffset, long endOffset, int limit);

  /** This node's stream-set objects, oldest first: what compaction merges. */
  CompletableFuture<List<ObjectMetadata>> getStreamSetObjects();
}
