package io.picomq.s3stream.objectstore;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * An {@link ObjectStore} held in this process's heap, for tests and throwaway runs.
 *
 * <p>It applies the same key and range rules as the durable backends, so code tested here fails the
 * same way on S3. Every future it returns is already complete when the method returns. Objects are
 * private byte arrays: a put copies the caller's bytes and a get hands out a fresh copy (in buffers
 * from {@link ReadBuffers}, as the file store's), so no buffer is shared with callers.
 */
public final class MemoryObjectStore implements ObjectStore {

  /** Keys in {@link ObjectKeys#ORDER}; values are never mutated after insertion. */
  private final ConcurrentNavigableMap<String, byte[]> objects =
      new ConcurrentSkipListMap<>(ObjectKeys.ORDER);

  private final ReadBuffers readBuffers;
  private volatile boolean closed;

  /** A store whose gets copy into buffers of {@link ByteBufAllocator#DEFAULT}. */
  public MemoryObjectStore() {
    this(ByteBufAllocator.DEFAULT);
  }

  /**
   * @param allocator allocates the buffers {@link #get} returns, through {@link ReadBuffers}
   */
  public MemoryObjectStore(ByteBufAllocator allocator) {
    this.readBuffers = new ReadBuffers(allocator);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Copies the readable bytes of {@code data} without moving its indices; the caller keeps
   * ownership and releases it.
   */
  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    return attempt(
        () -> {
          ObjectKeys.check(key);
          byte[] bytes = new byte[data.readableBytes()];
          data.getBytes(data.readerIndex(), bytes);
          objects.put(key, bytes);
          return null;
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>The returned buffer is a copy; the caller releases it.
   */
  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    Objects.requireNonNull(key, "key");
    return attempt(
        () -> {
          ObjectKeys.check(key);
          ObjectRange.checkRequest(key, start, end);
          byte[] bytes = objects.get(key);
          if (bytes == null) {
            throw new ObjectNotFoundException(key);
          }
          ObjectRange range = ObjectRange.resolve(key, start, end, bytes.length);
          int length = (int) range.lengthBytes();
          return readBuffers.allocate(length).writeBytes(bytes, (int) range.start(), length);
        });
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return attempt(
        () -> {
          List<ObjectInfo> found = new ArrayList<>();
          for (Map.Entry<String, byte[]> e : objects.tailMap(prefix, true).entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
              break;
            }
            found.add(new ObjectInfo(e.getKey(), e.getValue().length));
          }
          return List.copyOf(found);
        });
  }

  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    List<String> copy = List.copyOf(keys);
    return attempt(
        () -> {
          copy.forEach(ObjectKeys::check);
          copy.forEach(objects::remove);
          return null;
        });
  }

  @Override
  public void close() {
    closed = true;
    objects.clear();
  }

  @Override
  public String toString() {
    return "MemoryObjectStore[" + objects.size() + " objects]";
  }

  private <T> CompletableFuture<T> attempt(Operation<T> operation) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new ObjectStoreException(ObjectStoreException.Kind.CLOSED, "the memory store is closed"));
    }
    try {
      return CompletableFuture.completedFuture(operation.run());
    } catch (ObjectStoreException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @FunctionalInterface
  private interface Operation<T> {
    T run();
  }
}
