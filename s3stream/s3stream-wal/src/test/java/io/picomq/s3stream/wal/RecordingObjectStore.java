package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wraps a real store and records every PUT that reaches it (key and bytes), to check that no WAL
 * key is ever written with two different contents, and counts PUTs running at once.
 */
final class RecordingObjectStore implements ObjectStore {

  private final ObjectStore delegate;
  private final Map<String, List<byte[]>> puts = new ConcurrentHashMap<>();
  private final List<String> putOrder = new CopyOnWriteArrayList<>();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger maxRunning = new AtomicInteger();

  RecordingObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  /** Every key PUT, in call order, repeats included. */
  List<String> putKeys() {
    return List.copyOf(putOrder);
  }

  int putCount() {
    return putOrder.size();
  }

  /** The most PUTs that were running at the same time. */
  int maxConcurrentPuts() {
    return maxRunning.get();
  }

  /** Keys that were PUT more than once with different bytes; must always be empty. */
  List<String> keysWithConflictingContents() {
    List<String> conflicting = new ArrayList<>();
    puts.forEach(
        (key, versions) -> {
          for (byte[] version : versions) {
            if (!Arrays.equals(version, versions.get(0))) {
              conflicting.add(key);
              return;
            }
          }
        });
    return conflicting;
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    puts.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(ByteBufUtil.getBytes(data));
    putOrder.add(key);
    maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
    return delegate.put(key, data).whenComplete((ignored, error) -> running.decrementAndGet());
  }

  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    return delegate.get(key, start, end);
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return delegate.list(prefix);
  }

  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    return delegate.delete(keys);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
