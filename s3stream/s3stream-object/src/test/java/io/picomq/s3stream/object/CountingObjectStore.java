package io.picomq.s3stream.object;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A decorator that records every ranged GET before passing it to a real store, and keeps the
 * buffers it handed out so a test can check that the reader released every one of them.
 */
final class CountingObjectStore implements ObjectStore {

  /** One GET as requested. */
  record Get(String key, long start, long end) {}

  private final ObjectStore delegate;
  private final List<Get> gets = new CopyOnWriteArrayList<>();
  private final List<ByteBuf> handedOut = new CopyOnWriteArrayList<>();

  CountingObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  List<Get> gets() {
    return List.copyOf(gets);
  }

  void reset() {
    gets.clear();
  }

  /** GET buffers somebody still holds a reference to. */
  List<ByteBuf> unreleased() {
    return handedOut.stream().filter(b -> b.refCnt() > 0).toList();
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    return delegate.put(key, data);
  }

  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    gets.add(new Get(key, start, end));
    return delegate.get(key, start, end).thenApply(this::track);
  }

  private ByteBuf track(ByteBuf buf) {
    handedOut.add(buf);
    return buf;
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
