package io.picomq.s3stream.object;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/** Shortcuts for building objects from {@link BatchValue}s and reading them back. */
final class TestObjects {

  private TestObjects() {}

  static ObjectWriter writer(int thresholdBytes, List<BatchValue> batches) {
    ObjectWriter writer = new ObjectWriter(thresholdBytes, UnpooledByteBufAllocator.DEFAULT);
    batches.forEach(b -> writer.append(b.encode()));
    return writer;
  }

  /** The finished object's bytes, copied; the object's buffer is released. */
  static byte[] bytes(EncodedObject object) {
    try {
      return ByteBufUtil.getBytes(object.bytes());
    } finally {
      object.bytes().release();
    }
  }

  static WrittenObject upload(
      ObjectStore store, long objectId, int thresholdBytes, List<BatchValue> batches) {
    return join(writer(thresholdBytes, batches).upload(store, ObjectNamespace.DEFAULT, objectId));
  }

  static void put(ObjectStore store, long objectId, byte[] bytes) {
    ByteBuf buf = Unpooled.wrappedBuffer(bytes);
    try {
      join(store.put(ObjectNamespace.DEFAULT.key(objectId), buf));
    } finally {
      buf.release();
    }
  }

  static ObjectReader open(ObjectStore store, long objectId, long sizeBytes) {
    return join(ObjectReader.open(store, ObjectNamespace.DEFAULT, objectId, sizeBytes));
  }

  /** Every batch of {@code streamId} in the object from {@code startOffset}, without limits. */
  static List<BatchValue> readAll(ObjectReader reader, long streamId, long startOffset) {
    ObjectReadResult result =
        join(reader.read(streamId, startOffset, Long.MAX_VALUE, Integer.MAX_VALUE));
    return BatchValue.consume(result.batches());
  }

  /** Reads every block the index lists; a full check of the object against its index. */
  static List<BatchValue> scan(ObjectReader reader) {
    List<BlockLocation> all =
        java.util.stream.IntStream.range(0, reader.index().entries().size())
            .mapToObj(reader.index()::locate)
            .toList();
    return BatchValue.consume(join(reader.readBlocks(all)));
  }

  /** Waits for a future; failures surface as their cause. */
  static <T> T join(CompletableFuture<T> future) {
    try {
      return future.get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new CompletionException(cause);
    } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }
}
