package io.picomq.s3stream.objectstore;

import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A bounded pool of platform threads that runs a backend's blocking calls (file I/O, the S3 SDK's
 * synchronous client) and turns each into a future, so {@link ObjectStore} stays asynchronous.
 *
 * <p>Platform threads rather than virtual ones: the Apache HTTP client and {@code FileChannel}
 * block inside {@code synchronized} code, which pins a virtual thread's carrier on Java 21. The
 * queue is bounded; when it is full a call fails at once as {@link
 * ObjectStoreException.Kind#TRANSIENT}, which a {@link RetryingObjectStore} answers with backoff
 * rather than letting work pile up without limit.
 *
 * <p>Threads start on demand, so constructing a pool starts none. {@link #close()} fails every
 * queued call with {@link ObjectStoreException.Kind#CLOSED}, lets running calls finish for up to
 * the grace period, then interrupts them.
 */
public final class IoPool implements AutoCloseable {

  /** A blocking call; any exception it throws goes to the backend's classifier. */
  @FunctionalInterface
  public interface BlockingCall<T> {
    T call() throws Exception;
  }

  /** The pool whose thread this is, if any. */
  private static final ThreadLocal<IoPool> CURRENT = new ThreadLocal<>();

  private final String name;
  private final ThreadPoolExecutor executor;
  private final Duration closeGrace;

  /**
   * @param name prefix of the thread names, e.g. {@code "picomq-s3"}
   * @param threads the most calls running at once
   * @param queueCapacity the most calls waiting for a thread
   * @param closeGrace how long {@link #close()} waits for running calls
   */
  public IoPool(String name, int threads, int queueCapacity, Duration closeGrace) {
    if (threads < 1 || queueCapacity < 1) {
      throw new IllegalArgumentException(
          "IoPool " + name + " needs threads >= 1 and queueCapacity >= 1");
    }
    this.name = name;
    this.closeGrace = closeGrace;
    this.executor =
        new ThreadPoolExecutor(
            threads,
            threads,
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(queueCapacity),
            daemonThreads(name));
    executor.allowCoreThreadTimeOut(true);
  }

  /**
   * Runs {@code call} on a pool thread.
   *
   * @param what names the operation in error messages, e.g. {@code "GET 'a/b'"}
   * @param classify turns whatever {@code call} throws into the backend's classified exception
   * @return a future completed with the call's result or the classified exception
   */
  public <T> CompletableFuture<T> submit(
      String what, BlockingCall<T> call, Function<Throwable, ObjectStoreException> classify) {
    Task<T> task = new Task<>(what, call, classify);
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      task.result.completeExceptionally(rejected(what, e));
    }
    return task.result;
  }

  /**
   * Runs {@code call} at once when the caller is one of this pool's threads (it may block already,
   * and a hand-off would only add a wakeup), else as {@link #submit} does. For calls that take
   * microseconds, such as listing a small local directory.
   */
  public <T> CompletableFuture<T> runHereOrSubmit(
      String what, BlockingCall<T> call, Function<Throwable, ObjectStoreException> classify) {
    if (CURRENT.get() != this) {
      return submit(what, call, classify);
    }
    Task<T> task = new Task<>(what, call, classify);
    task.run();
    return task.result;
  }

  /** True once {@link #close()} has begun. */
  public boolean isClosed() {
    return executor.isShutdown();
  }

  @Override
  public void close() {
    executor.shutdown();
    List<Runnable> queued = new ArrayList<>();
    executor.getQueue().drainTo(queued);
    for (Runnable r : queued) {
      ((Task<?>) r).result.completeExceptionally(closed(((Task<?>) r).what));
    }
    try {
      if (!executor.awaitTermination(closeGrace.toMillis(), TimeUnit.MILLISECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private ObjectStoreException rejected(String what, RejectedExecutionException e) {
    if (executor.isShutdown()) {
      return closed(what);
    }
    return new ObjectStoreException(
        ObjectStoreException.Kind.TRANSIENT,
        what
            + " rejected: all "
            + executor.getMaximumPoolSize()
            + " threads of "
            + name
            + " are busy and its queue is full",
        e);
  }

  private ObjectStoreException closed(String what) {
    return new ObjectStoreException(
        ObjectStoreException.Kind.CLOSED, what + " failed: " + name + " is closed");
  }

  private ThreadFactory daemonThreads(String name) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Runnable marked =
          () -> {
            CURRENT.set(this);
            r.run();
          };
      Thread t = new Thread(marked, name + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** A call paired with the future that reports it, so a queued call can be failed on close. */
  private static final class Task<T> implements Runnable {
    final String what;
    final BlockingCall<T> call;
    final Function<Throwable, ObjectStoreException> classify;
    final CompletableFuture<T> result = new CompletableFuture<>();

    Task(String what, BlockingCall<T> call, Function<Throwable, ObjectStoreException> classify) {
      this.what = what;
      this.call = call;
      this.classify = classify;
    }

    @Override
    public void run() {
      T value;
      try {
        value = call.call();
      } catch (Throwable t) {
        result.completeExceptionally(t instanceof Error ? t : classify.apply(t));
        if (t instanceof Error) {
          throw (Error) t;
        }
        return;
      }
      if (!result.complete(value)) {
        // The caller gave up (cancelled) first: nobody else will release a buffer we read.
        ReferenceCountUtil.release(value);
      }
    }
  }
}
