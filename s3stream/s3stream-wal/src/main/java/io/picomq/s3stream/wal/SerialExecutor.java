package io.picomq.s3stream.wal;

import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on threads of another executor: the owner of a
 * WAL's mutable state. Tasks submitted from inside a task run after it, never nested, so a task may
 * complete futures whose callbacks submit more work.
 *
 * <p>A task that throws is a bug; the exception is logged and the next task runs. Public for WAL
 * implementations.
 */
public final class SerialExecutor implements Executor {

  private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);

  private final Executor delegate;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();

  public SerialExecutor(Executor delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public void execute(Runnable task) {
    tasks.add(Objects.requireNonNull(task, "task"));
    scheduleTurn();
  }

  /**
   * Like {@link #execute}, but when no turn is running or scheduled, runs the turn on the calling
   * thread rather than handing it to the delegate: for a completion callback that already holds the
   * result (a finished PUT), so the owner's work does not wait for another thread to wake up. From
   * inside a turn it only queues, as {@link #execute} does.
   */
  public void runHereOrQueue(Runnable task) {
    tasks.add(Objects.requireNonNull(task, "task"));
    if (scheduled.compareAndSet(false, true)) {
      runTurn();
    }
  }

  private void scheduleTurn() {
    if (scheduled.compareAndSet(false, true)) {
      delegate.execute(this::runTurn);
    }
  }

  private void runTurn() {
    try {
      // Until the queue is empty: a turn per batch of tasks would recurse when the delegate runs
      // tasks in the caller's thread, as tests' direct executors do.
      Runnable task;
      while ((task = tasks.poll()) != null) {
        try {
          task.run();
        } catch (RuntimeException e) {
          LOG.error("a WAL task failed; this is a bug", e);
        }
      }
    } finally {
      scheduled.set(false);
      if (!tasks.isEmpty()) {
        scheduleTurn();
      }
    }
  }
}
