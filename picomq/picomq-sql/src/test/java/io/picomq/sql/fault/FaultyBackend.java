package io.picomq.sql.fault;

import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.backend.SqlDialect;
import io.picomq.sql.backend.SqlWork;
import io.picomq.sql.backend.TableNames;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A real backend with faults injected in front of it, one per node under test:
 *
 * <ul>
 *   <li>{@link #stall()} / {@link #resume()}: every later borrow waits (the node's database calls
 *       hang) until resumed; nothing is held while waiting, so other nodes are unaffected;
 *   <li>{@link #kill()}: every later borrow fails, as if the node's process were gone;
 *   <li>{@link #killAfterNextLogInsert()}: the next successful insert into the log table commits,
 *       then the node dies, which is a crash between a row's insert and its apply;
 *   <li>{@link #stallAfterNextLogInsert()}: likewise, but the node hangs instead of dying;
 *   <li>{@link #loseAnswerOfNextLogInsert()}: the next insert into the log table runs, then reports
 *       a failure, as when a connection breaks while the commit is acknowledged;
 *   <li>{@link #beforeBorrow(int, Runnable)}: something another node does runs just before one of
 *       this node's later borrows, between two of its statements.
 * </ul>
 *
 * Closing it leaves the real backend open (the suite owns that).
 */
public final class FaultyBackend implements SqlBackend {
  private final SqlBackend delegate;
  private final String logInsertPrefix;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition resumed = lock.newCondition();

  /** Guarded by {@code lock}. */
  private boolean stalled;

  /** Guarded by {@code lock}: callers waiting in {@link #awaitNotStalled()}. */
  private int waiting;

  private volatile boolean dead;
  private volatile boolean killAfterLogInsert;
  private volatile boolean stallAfterLogInsert;
  private volatile boolean loseAnswerOfLogInsert;

  /** Borrows left until {@link #beforeBorrow} runs its task; 0 when none is set. */
  private final AtomicInteger borrowsUntilTask = new AtomicInteger();

  private volatile Runnable beforeBorrowTask;

  public FaultyBackend(SqlBackend delegate) {
    this.delegate = delegate;
    this.logInsertPrefix = ("INSERT INTO " + delegate.tables().log()).toLowerCase(Locale.ROOT);
  }

  public void stall() {
    lock.lock();
    try {
      stalled = true;
    } finally {
      lock.unlock();
    }
  }

  public void resume() {
    lock.lock();
    try {
      stalled = false;
      resumed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public void kill() {
    dead = true;
  }

  public void killAfterNextLogInsert() {
    killAfterLogInsert = true;
  }

  public void stallAfterNextLogInsert() {
    stallAfterLogInsert = true;
  }

  public void loseAnswerOfNextLogInsert() {
    loseAnswerOfLogInsert = true;
  }

  /** Runs {@code task} once, just before the {@code nth} borrow from now (1: the next one). */
  public void beforeBorrow(int nth, Runnable task) {
    beforeBorrowTask = task;
    borrowsUntilTask.set(nth);
  }

  public boolean dead() {
    return dead;
  }

  /** How many of the node's database calls are hanging in a stall now. */
  public int stalledCalls() {
    lock.lock();
    try {
      return waiting;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public SqlDialect dialect() {
    return delegate.dialect();
  }

  @Override
  public TableNames tables() {
    return delegate.tables();
  }

  @Override
  public String describe() {
    return "faulty(" + delegate.describe() + ")";
  }

  @Override
  public <T> T withConnection(SqlWork<T> work) throws SQLException {
    if (borrowsUntilTask.get() > 0 && borrowsUntilTask.decrementAndGet() == 0) {
      beforeBorrowTask.run();
    }
    awaitNotStalled();
    if (dead) {
      throw new SQLException("injected fault: node is dead");
    }
    return delegate.withConnection(connection -> work.run(watch(connection)));
  }

  private void awaitNotStalled() throws SQLException {
    lock.lock();
    try {
      waiting++;
      try {
        while (stalled) {
          resumed.await();
        }
      } finally {
        waiting--;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while stalled by an injected fault", e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Wraps the connection so that every statement checks for faults once it has run: a statement
   * that completes while the node is dead or stalled loses its result (it throws), exactly as if
   * the process had died or hung before reading the answer. Because the faults are set before the
   * triggering insert runs, no read of this node can see that insert's row and still return it.
   */
  private Connection watch(Connection connection) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          Object result = invoke(connection, method, args);
          if (method.getName().equals("prepareStatement")
              && args != null
              && args[0] instanceof String sql) {
            return watch(
                (PreparedStatement) result,
                sql.toLowerCase(Locale.ROOT).startsWith(logInsertPrefix));
          }
          return result;
        };
    return (Connection)
        Proxy.newProxyInstance(
            FaultyBackend.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
  }

  private PreparedStatement watch(PreparedStatement statement, boolean logInsert) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (!method.getName().startsWith("execute")) {
            return invoke(statement, method, args);
          }
          boolean triggers = logInsert && (killAfterLogInsert || stallAfterLogInsert);
          if (triggers) {
            // Armed before the insert runs: nothing can read its row and escape the fault.
            if (killAfterLogInsert) {
              dead = true;
            }
            if (stallAfterLogInsert) {
              stallAfterLogInsert = false;
              stall();
            }
          }
          Object result = invoke(statement, method, args);
          if (logInsert && loseAnswerOfLogInsert) {
            loseAnswerOfLogInsert = false;
            throw new SQLException("injected fault: the insert ran but its answer was lost");
          }
          if (!triggers) {
            checkAfterCall();
          }
          return result;
        };
    return (PreparedStatement)
        Proxy.newProxyInstance(
            FaultyBackend.class.getClassLoader(),
            new Class<?>[] {PreparedStatement.class},
            handler);
  }

  /** Throws at once rather than waiting, so a stalled node never sits on a shared connection. */
  private void checkAfterCall() throws SQLException {
    if (dead) {
      throw new SQLException("injected fault: the node died during the call");
    }
    lock.lock();
    try {
      if (stalled) {
        throw new SQLException("injected fault: the call's answer was lost in a stall");
      }
    } finally {
      lock.unlock();
    }
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public void close() {
    resume();
  }
}
