package io.picomq.s3stream.wal;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An executor with one thread of its own that a test can hold (tasks wait), release, or crash
 * (queued and later tasks are dropped, as in a dead process). Used as a {@link MemoryWal}'s
 * persister: holding it stalls durability, crashing it loses what was not yet stored.
 */
final class ControlledExecutor implements Executor, AutoCloseable {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Deque<Runnable> queue = new ArrayDeque<>();
  private final Thread thread;

  // Guarded by lock.
  private boolean held;
  private boolean crashed;
  private boolean running;
  private boolean closed;

  ControlledExecutor(String name) {
    thread = new Thread(this::loop, name);
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void execute(Runnable task) {
    lock.lock();
    try {
      if (!crashed) {
        queue.addLast(task);
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Tasks wait until {@link #release}. */
  void hold() {
    lock.lock();
    try {
      held = true;
    } finally {
      lock.unlock();
    }
  }

  void release() {
    lock.lock();
    try {
      held = false;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Drops every queued task and every later one; returns once a running task has finished. */
  void crash() {
    lock.lock();
    try {
      crashed = true;
      queue.clear();
      changed.signalAll();
      while (running) {
        changed.awaitUninterruptibly();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void loop() {
    while (true) {
      Runnable task;
      lock.lock();
      try {
        while (!closed && (held || queue.isEmpty())) {
          changed.awaitUninterruptibly();
        }
        if (closed) {
          return;
        }
        task = queue.pollFirst();
        running = true;
      } finally {
        lock.unlock();
      }
      try {
        task.run();
      } finally {
        lock.lock();
        try {
          running = false;
          changed.signalAll();
        } finally {
          lock.unlock();
        }
      }
    }
  }
}
