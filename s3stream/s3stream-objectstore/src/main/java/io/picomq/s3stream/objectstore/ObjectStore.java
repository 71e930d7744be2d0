package io.picomq.s3stream.objectstore;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A flat key space of immutable byte objects: the only way the engine touches durable storage.
 *
 * <p>Every operation is asynchronous and every returned future completes, normally or with an
 * {@link ObjectStoreException} whose {@link ObjectStoreException#kind() kind} says whether
 * repeating the call may help. Implementations are thread-safe. Every operation may be repeated
 * safely, which is what lets {@link RetryingObjectStore} wrap any of them.
 *
 * <p>Keys follow {@link ObjectKeys}: non-empty, well-formed Unicode, at most 1024 UTF-8 bytes, and
 * otherwise opaque ({@code "a/../b"} is a key like any other, not a path). Keys are listed in code
 * point order, which is S3's order.
 *
 * <p>Buffer ownership: {@link #put} never takes ownership of its argument (the caller releases it
 * once the future completes); {@link #get} hands the caller a buffer that the caller must release.
 */
public interface ObjectStore extends AutoCloseable {

  /**
   * Stores {@code data} under {@code key}, replacing any object there. When the future completes
   * normally the object is durable and fully visible to {@link #get} and {@link #list}; a failed
   * put leaves either the old object or nothing, never a partial one. (A put whose answer was lost
   * may also have stored the new object whole: the caller cannot tell, which is why repeating a put
   * must be harmless.)
   */
  CompletableFuture<Void> put(String key, ByteBuf data);

  /**
   * Reads the bytes {@code [start, end)} of the object at {@code key}; {@code end == -1} reads to
   * the end. Fails with {@link ObjectNotFoundException} if there is no such object, and with an
   * {@link ObjectStoreException} if the range is invalid or exceeds the object (kind {@link
   * ObjectStoreException.Kind#INVALID_ARGUMENT}; never a short read). {@link ObjectRange} spells
   * out the rule with examples.
   */
  CompletableFuture<ByteBuf> get(String key, long start, long end);

  /**
   * Every object whose key starts with {@code prefix}, in ascending key order, across all pages.
   */
  CompletableFuture<List<ObjectInfo>> list(String prefix);

  /** Deletes the objects at {@code keys} (batched where the store allows); absent keys are fine. */
  CompletableFuture<Void> delete(List<String> keys);

  /** Releases connections and threads; operations after close fail. */
  @Override
  void close();
}
