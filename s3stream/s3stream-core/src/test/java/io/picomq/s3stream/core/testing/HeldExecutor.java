package io.picomq.s3stream.core.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An executor that holds its tasks until {@link #release()}, then runs them (and every later one)
 * on the delegate: stalls whatever runs on it, e.g. a memory WAL's persister.
 */
public final class HeldExecutor implements Executor {

  private final Executor delegate;
  private final ReentrantLock lock = new ReentrantLock();
  private final List<Runnable> held = new ArrayList<>();
  private boolean released;

  public HeldExecutor(Executor delegate) {
    this.delegate = delegate;
  }

  @Override
  public void execute(Runnable task) {
    lock.lock();
    try {
      if (!released) {
        held.add(task);
        return;
      }
    } finally {
      lock.unlock();
    }
    delegate.execute(task);
  }

  /** Runs the held tasks and lets later ones through. */
  public void release() {
    List<Runnable> tasks;
    lock.lock();
    try {
      released = true;
      tasks = new ArrayList<>(held);
      held.clear();
    } finally {
      lock.unlock();
    }
    tasks.forEach(delegate::execute);
  }
}
