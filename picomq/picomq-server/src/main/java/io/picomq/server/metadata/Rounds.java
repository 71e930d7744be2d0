package io.picomq.server.metadata;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a round of background work every {@code interval} (or sooner, when {@linkplain #wake woken})
 * on one virtual thread until closed: what {@link Maintenance}, {@link Failover}, {@link Transfers}
 * and the service's {@code Arrivals} share. A round that throws is logged and the next one runs on
 * time; {@link #close()} wakes the thread and waits (bounded) for the round in progress.
 */
public final class Rounds implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Rounds.class);
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  private final String name;
  private final Duration interval;
  private final Runnable round;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition stopping = lock.newCondition();

  /** Guarded by {@code lock}. */
  private boolean closed;

  /** Guarded by {@code lock}. */
  private Thread thread;

  /** Guarded by {@code lock}: a round was asked for before its time. */
  private boolean woken;

  /**
   * @param name the thread's name, and what a failed round's log line names
   */
  public Rounds(String name, Duration interval, Runnable round) {
    this.name = name;
    this.interval = interval;
    this.round = round;
  }

  public void start() {
    lock.lock();
    try {
      if (thread == null && !closed) {
        thread = Thread.ofVirtual().name(name).start(this::loop);
      }
    } finally {
      lock.unlock();
    }
  }

  private void loop() {
    while (awaitNextRound()) {
      try {
        round.run();
      } catch (RuntimeException e) {
        LOG.warn("{} round failed; retrying next round: {}", name, e.toString());
      }
    }
  }

  /** Runs the next round now rather than at its time (or right after the one in progress). */
  public void wake() {
    lock.lock();
    try {
      woken = true;
      stopping.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private boolean awaitNextRound() {
    lock.lock();
    try {
      if (!closed && !woken) {
        stopping.await(interval.toMillis(), TimeUnit.MILLISECONDS);
      }
      woken = false;
      return !closed;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    Thread running;
    lock.lock();
    try {
      closed = true;
      stopping.signalAll();
      running = thread;
    } finally {
      lock.unlock();
    }
    if (running != null) {
      try {
        running.join(CLOSE_WAIT);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
