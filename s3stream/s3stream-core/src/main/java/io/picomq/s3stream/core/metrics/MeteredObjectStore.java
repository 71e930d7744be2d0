package io.picomq.s3stream.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Counts and times every call to an object store, tagged with the store's role ({@code wal} or
 * {@code data}): {@code s3stream.objectstore.requests} (a timer per operation and outcome) and
 * {@code s3stream.objectstore.bytes} (per operation). Wrapped around the store the WAL writes to,
 * its timer with {@code op=put} is the WAL's PUT count and latency.
 */
public final class MeteredObjectStore implements ObjectStore {

  private final ObjectStore delegate;
  private final Timer putOk;
  private final Timer putFailed;
  private final Timer getOk;
  private final Timer getFailed;
  private final Timer listOk;
  private final Timer listFailed;
  private final Timer deleteOk;
  private final Timer deleteFailed;
  private final Counter putBytes;
  private final Counter getBytes;

  /**
   * @param role the store's role in the engine, a tag value ({@code wal} or {@code data})
   */
  public MeteredObjectStore(ObjectStore delegate, MeterRegistry registry, String role) {
    this.delegate = delegate;
    putOk = timer(registry, role, "put", "ok");
    putFailed = timer(registry, role, "put", "failed");
    getOk = timer(registry, role, "get", "ok");
    getFailed = timer(registry, role, "get", "failed");
    listOk = timer(registry, role, "list", "ok");
    listFailed = timer(registry, role, "list", "failed");
    deleteOk = timer(registry, role, "delete", "ok");
    deleteFailed = timer(registry, role, "delete", "failed");
    putBytes = bytes(registry, role, "put");
    getBytes = bytes(registry, role, "get");
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    int size = data.readableBytes();
    return timed(() -> delegate.put(key, data), putOk, putFailed)
        .thenApply(
            v -> {
              putBytes.increment(size);
              return v;
            });
  }

  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    return timed(() -> delegate.get(key, start, end), getOk, getFailed)
        .thenApply(
            buf -> {
              getBytes.increment(buf.readableBytes());
              return buf;
            });
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return timed(() -> delegate.list(prefix), listOk, listFailed);
  }

  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    return timed(() -> delegate.delete(keys), deleteOk, deleteFailed);
  }

  @Override
  public void close() {
    delegate.close();
  }

  private static <T> CompletableFuture<T> timed(
      Supplier<CompletableFuture<T>> call, Timer ok, Timer failed) {
    long started = System.nanoTime();
    CompletableFuture<T> answer;
    try {
      answer = call.get();
    } catch (RuntimeException e) {
      failed.record(System.nanoTime() - started, java.util.concurrent.TimeUnit.NANOSECONDS);
      throw e;
    }
    return answer.whenComplete(
        (value, error) ->
            (error == null ? ok : failed)
                .record(System.nanoTime() - started, java.util.concurrent.TimeUnit.NANOSECONDS));
  }

  private static Timer timer(MeterRegistry registry, String role, String op, String outcome) {
    return Timer.builder("s3stream.objectstore.requests")
        .tag("store", role)
        .tag("op", op)
        .tag("outcome", outcome)
        .description("object store calls and their latency")
        .register(registry);
  }

  private static Counter bytes(MeterRegistry registry, String role, String op) {
    return Counter.builder("s3stream.objectstore.bytes")
        .tag("store", role)
        .tag("op", op)
        .description("bytes written (put) or read (get)")
        .register(registry);
  }
}
