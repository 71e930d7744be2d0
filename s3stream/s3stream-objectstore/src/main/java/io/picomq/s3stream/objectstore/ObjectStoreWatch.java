package io.picomq.s3stream.objectstore;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.api.Causes;
import java.nio.file.FileSystemException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Watches the calls made to one object store and says whether it answers now: what a node's
 * readiness and its failure answers are built on.
 *
 * <p>Wrap the backend itself ({@link #watch}), inside any {@link RetryingObjectStore}, so that
 * every attempt counts: a store that fails every attempt is reported at once, not after the retry
 * policy gives up minutes later.
 *
 * <p>The rule, kept simple on purpose:
 *
 * <ul>
 *   <li>failing when the latest failed call (other than a missing key or a bad request, which say
 *       nothing about the store) ended after the latest successful one, and less than {@code
 *       failureMemory} ago: an idle store's last failure is forgotten after that, since nothing
 *       probes it;
 *   <li>stalled when a call has been running for more than {@code stallAfter} and no call succeeded
 *       during that time (a paused server never answers and never fails);
 *   <li>a failure whose cause says {@code No space left on device} (or a {@link
 *       FileSystemException} with that reason) is reported as no space.
 * </ul>
 *
 * <p>Threading: any thread; the state is a few volatile fields and a concurrent map of the calls in
 * flight.
 */
public final class ObjectStoreWatch {

  /** A store that answers nothing for this long counts as stalled. */
  public static final Duration DEFAULT_STALL_AFTER = Duration.ofSeconds(10);

  /** How long a failure is remembered when no later call succeeds. */
  public static final Duration DEFAULT_FAILURE_MEMORY = Duration.ofSeconds(30);

  /** Calls in flight longer than this are ignored: their backend lost them. */
  private static final long FORGET_CALL_NANOS = Duration.ofMinutes(5).toNanos();

  private static final String NO_SPACE = "no space left on device";

  /**
   * Why a store is not answering.
   *
   * @param noSpace the store ran out of space
   * @param detail what failed, in words
   */
  public record Problem(boolean noSpace, String detail) {}

  /** {@code order}: when it ended among all calls, to compare with the latest success. */
  private record Failure(long order, long atNanos, boolean noSpace, String detail) {}

  private final String name;
  private final LongSupplier nanoTime;
  private final long stallNanos;
  private final long memoryNanos;
  private final AtomicLong ids = new AtomicLong();
  private final AtomicLong ended = new AtomicLong();
  private final ConcurrentHashMap<Long, Long> inFlight = new ConcurrentHashMap<>();
  private volatile long lastSuccessNanos;
  private volatile long lastSuccessOrder;
  private volatile Failure lastFailure;

  /**
   * @param name the store's role, named in {@link Problem#detail()} ({@code wal}, {@code data})
   */
  public ObjectStoreWatch(
      String name, LongSupplier nanoTime, Duration stallAfter, Duration failureMemory) {
    this.name = Objects.requireNonNull(name, "name");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    this.stallNanos = stallAfter.toNanos();
    this.memoryNanos = failureMemory.toNanos();
    this.lastSuccessNanos = nanoTime.getAsLong();
  }

  /** A watch with the default thresholds on the system clock. */
  public static ObjectStoreWatch of(String name) {
    return new ObjectStoreWatch(
        name, System::nanoTime, DEFAULT_STALL_AFTER, DEFAULT_FAILURE_MEMORY);
  }

  /** {@code backend}, with every call it answers recorded here. */
  public ObjectStore watch(ObjectStore backend) {
    return new Watched(Objects.requireNonNull(backend, "backend"));
  }

  /** Why the store is not answering now, or empty when it is. */
  public Optional<Problem> problem() {
    long now = nanoTime.getAsLong();
    Failure failure = lastFailure;
    if (failure != null
        && failure.order > lastSuccessOrder
        && now - failure.atNanos < memoryNanos) {
      return Optional.of(new Problem(failure.noSpace, name + " storage: " + failure.detail));
    }
    if (now - lastSuccessNanos > stallNanos) {
      for (long started : inFlight.values()) {
        long running = now - started;
        if (running > stallNanos && running < FORGET_CALL_NANOS) {
          return Optional.of(
              new Problem(
                  false,
                  name
                      + " storage: a call has had no answer for "
                      + Duration.ofNanos(running).toSeconds()
                      + " s"));
        }
      }
    }
    return Optional.empty();
  }

  /** Whether {@code error} (or one of its causes) is a store out of space. */
  public static boolean isNoSpace(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      String reason =
          cause instanceof FileSystemException fs && fs.getReason() != null
              ? fs.getReason()
              : cause.getMessage();
      if (reason != null && reason.toLowerCase(Locale.ROOT).contains(NO_SPACE)) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  private <T> CompletableFuture<T> record(Supplier<CompletableFuture<T>> call) {
    long id = ids.incrementAndGet();
    inFlight.put(id, nanoTime.getAsLong());
    CompletableFuture<T> answer;
    try {
      answer = call.get();
    } catch (RuntimeException e) {
      inFlight.remove(id);
      failed(e);
      throw e;
    }
    return answer.whenComplete(
        (value, error) -> {
          inFlight.remove(id);
          if (error == null) {
            lastSuccessOrder = ended.incrementAndGet();
            lastSuccessNanos = nanoTime.getAsLong();
          } else {
            failed(error);
          }
        });
  }

  private void failed(Throwable error) {
    Throwable cause = Causes.unwrap(error);
    if (cause instanceof ObjectStoreException e
        && (e.kind() == ObjectStoreException.Kind.NOT_FOUND
            || e.kind() == ObjectStoreException.Kind.INVALID_ARGUMENT)) {
      return; // the store answered: the request was wrong, not the store
    }
    lastFailure =
        new Failure(
            ended.incrementAndGet(),
            nanoTime.getAsLong(),
            isNoSpace(cause),
            String.valueOf(cause.getMessage()));
  }

  private final class Watched implements ObjectStore {
    private final ObjectStore delegate;

    Watched(ObjectStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuf data) {
      return record(() -> delegate.put(key, data));
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, long start, long end) {
      return record(() -> delegate.get(key, start, end));
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
      return record(() -> delegate.list(prefix));
    }

    @Override
    public CompletableFuture<Void> delete(List<String> keys) {
      return record(() -> delegate.delete(keys));
    }

    @Override
    public void close() {
      delegate.close();
    }

    @Override
    public String toString() {
      return delegate.toString();
    }
  }
}
