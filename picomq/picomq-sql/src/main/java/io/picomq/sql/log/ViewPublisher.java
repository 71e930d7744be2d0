package io.picomq.sql.log;

import io.picomq.s3stream.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes views: the current one through an atomic reference that readers load without locks,
 * listeners on every publish, and futures for callers waiting for an index.
 *
 * <p>Threading: only the tailer publishes. {@code lock} guards {@code waiters} and {@code failure}.
 * {@link #publish} sets the reference before it collects waiters under the lock, and {@link #await}
 * re-reads the reference under the lock before it registers, so no waiter can miss the view that
 * satisfies it. Futures are completed on the completion executor, outside the lock.
 */
final class ViewPublisher<S> {
  private static final Logger LOG = LoggerFactory.getLogger(ViewPublisher.class);

  private final AtomicReference<View<S>> current;
  private final Executor completions;
  private final List<ViewListener<S>> listeners = new CopyOnWriteArrayList<>();
  private final ReentrantLock lock = new ReentrantLock();

  /** Guarded by {@code lock}: waiters by the index they wait for. */
  private final TreeMap<Long, List<CompletableFuture<View<S>>>> waiters = new TreeMap<>();

  /** Guarded by {@code lock}: once set, waits beyond the current index fail with it. */
  private MetadataLogException failure;

  ViewPublisher(View<S> initial, Executor completions) {
    this.current = new AtomicReference<>(initial);
    this.completions = completions;
  }

  View<S> current() {
    return current.get();
  }

  void addListener(ViewListener<S> listener) {
    listeners.add(listener);
  }

  void removeListener(ViewListener<S> listener) {
    listeners.remove(listener);
  }

  /** Makes {@code view} current. Tailer thread only. */
  void publish(View<S> view) {
    current.set(view);
    for (ViewListener<S> listener : listeners) {
      try {
        listener.onApplied(view);
      } catch (RuntimeException e) {
        LOG.error("view listener {} failed at row {}", listener, view.appliedIndex(), e);
      }
    }
    List<CompletableFuture<View<S>>> ready = new ArrayList<>();
    lock.lock();
    try {
      SortedMap<Long, List<CompletableFuture<View<S>>>> reached =
          waiters.headMap(view.appliedIndex(), true);
      reached.values().forEach(ready::addAll);
      reached.clear();
    } finally {
      lock.unlock();
    }
    if (!ready.isEmpty()) {
      Batch.dispatch(completions, () -> ready.forEach(waiter -> waiter.complete(view)));
    }
  }

  /**
   * A future for the first view whose applied index is at least {@code index}; completed at once if
   * the current one is.
   *
   * @param timeout fail the future with a {@link java.util.concurrent.TimeoutException} after this
   *     long, or {@code null} to wait without limit
   */
  CompletableFuture<View<S>> await(long index, Duration timeout) {
    View<S> now = current.get();
    if (now.appliedIndex() >= index) {
      return CompletableFuture.completedFuture(now);
    }
    CompletableFuture<View<S>> waiter = new CompletableFuture<>();
    lock.lock();
    try {
      now = current.get();
      if (now.appliedIndex() >= index) {
        return CompletableFuture.completedFuture(now);
      }
      if (failure != null) {
        return CompletableFuture.failedFuture(failure);
      }
      waiters.computeIfAbsent(index, key -> new ArrayList<>()).add(waiter);
    } finally {
      lock.unlock();
    }
    if (timeout != null) {
      // Not orTimeout: JDK 25 wakes its delay thread to arm and to cancel each such timer.
      Scheduler.system().failAfter(waiter, timeout.toNanos(), TimeoutException::new);
      waiter.whenComplete(
          (view, error) -> {
            if (error != null) {
              forget(index, waiter);
            }
          });
    }
    return waiter;
  }

  private void forget(long index, CompletableFuture<View<S>> waiter) {
    lock.lock();
    try {
      List<CompletableFuture<View<S>>> atIndex = waiters.get(index);
      if (atIndex != null && atIndex.remove(waiter) && atIndex.isEmpty()) {
        waiters.remove(index);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Fails every waiter, and every later wait beyond the current index, with {@code cause}. */
  void fail(MetadataLogException cause) {
    List<CompletableFuture<View<S>>> failed = new ArrayList<>();
    lock.lock();
    try {
      if (failure == null) {
        failure = cause;
      }
      waiters.values().forEach(failed::addAll);
      waiters.clear();
    } finally {
      lock.unlock();
    }
    MetadataLogException reason = cause;
    Batch.dispatch(
        completions, () -> failed.forEach(waiter -> waiter.completeExceptionally(reason)));
  }
}
