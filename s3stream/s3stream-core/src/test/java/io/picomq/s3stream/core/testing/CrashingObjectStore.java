package io.picomq.s3stream.core.testing;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A real {@link ObjectStore} as seen by a process that may crash ({@link CrashSwitch}): after the
 * crash every call fails and answers still in flight are lost. Closing it does not close the real
 * store, which outlives the process.
 */
public final class CrashingObjectStore implements ObjectStore {

  private final ObjectStore delegate;
  private final CrashSwitch crash;
  private final CrashSwitch.Site putSite;
  private final CrashSwitch.Site otherSite;

  /**
   * @param putSite the site of puts (WAL or data)
   * @param otherSite the site of gets, lists and deletes
   */
  public CrashingObjectStore(
      ObjectStore delegate,
      CrashSwitch crash,
      CrashSwitch.Site putSite,
      CrashSwitch.Site otherSite) {
    this.delegate = delegate;
    this.crash = crash;
    this.putSite = putSite;
    this.otherSite = otherSite;
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    return call(putSite, () -> delegate.put(key, data));
  }

  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    return call(otherSite, () -> delegate.get(key, start, end));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return call(otherSite, () -> delegate.list(prefix));
  }

  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    return call(otherSite, () -> delegate.delete(keys));
  }

  @Override
  public void close() {}

  private <T> CompletableFuture<T> call(CrashSwitch.Site site, Supplier<CompletableFuture<T>> op) {
    int ticket = crash.before(site);
    if (ticket < 0) {
      return CompletableFuture.failedFuture(crashed(site));
    }
    CompletableFuture<T> answer = new CompletableFuture<>();
    CompletableFuture<T> called;
    try {
      called = op.get();
    } catch (RuntimeException e) {
      called = CompletableFuture.failedFuture(e);
    }
    called.whenComplete(
        (value, error) -> {
          if (crash.after(site, ticket)) {
            if (value instanceof ByteBuf buf) {
              buf.release();
            }
            answer.completeExceptionally(crashed(site));
          } else if (error != null) {
            answer.completeExceptionally(error);
          } else {
            answer.complete(value);
          }
        });
    return answer;
  }

  private static ObjectStoreException crashed(CrashSwitch.Site site) {
    return new ObjectStoreException(
        ObjectStoreException.Kind.PERMANENT,
        "the process crashed (" + site + ")",
        CrashSwitch.crashedError(site));
  }
}
