package io.picomq.s3stream.pgwal;

import io.picomq.s3stream.time.Backoff;
import io.picomq.s3stream.time.Scheduler;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the WAL's blocking JDBC work off the engine's threads, with a pooled connection, retrying
 * outages.
 *
 * <p>Each call runs on its own thread of {@code blocking} (virtual threads: JDBC blocks, and a
 * thread per statement in flight costs nothing). A {@linkplain TransientFailures transient} failure
 * is reported to {@link DatabaseProblems} and the whole work is run again after a backoff (10 ms
 * doubling to 1 s), for as long as {@code giveUp} says nothing: the work must therefore be safe to
 * repeat after it failed anywhere, even after a commit whose answer was lost. Any other failure
 * fails the call at once.
 */
final class DatabaseCalls {

  private static final Logger LOG = LoggerFactory.getLogger(DatabaseCalls.class);

  static final Backoff BACKOFF = Backoff.exponential(Duration.ofMillis(10), Duration.ofSeconds(1));

  /** Work with a connection; the connection goes back to the pool after it. */
  @FunctionalInterface
  interface SqlWork<T> {
    T run(Connection connection) throws SQLException;
  }

  private final DataSource pool;
  private final Executor blocking;
  private final Scheduler scheduler;
  private final DatabaseProblems problems;

  DatabaseCalls(
      DataSource pool, Executor blocking, Scheduler scheduler, DatabaseProblems problems) {
    this.pool = pool;
    this.blocking = blocking;
    this.scheduler = scheduler;
    this.problems = problems;
  }

  /**
   * Runs {@code work} until it succeeds, fails for good, or {@code giveUp} answers an error
   * (checked before every attempt; the call then fails with that error).
   *
   * @param what the operation, for logs and {@link DatabaseProblems}
   */
  <T> CompletableFuture<T> call(
      String what, SqlWork<T> work, Supplier<Optional<RuntimeException>> giveUp) {
    CompletableFuture<T> result = new CompletableFuture<>();
    attempt(new Call<>(what, work, giveUp, result), 1);
    return result;
  }

  /** One call's state; its identity keys its entry in {@link DatabaseProblems}. */
  private record Call<T>(
      String what,
      SqlWork<T> work,
      Supplier<Optional<RuntimeException>> giveUp,
      CompletableFuture<T> result) {}

  private <T> void attempt(Call<T> call, int attempt) {
    Optional<RuntimeException> stop = call.giveUp().get();
    if (stop.isPresent()) {
      problems.clear(call);
      call.result().completeExceptionally(stop.get());
      return;
    }
    try {
      blocking.execute(() -> run(call, attempt));
    } catch (RejectedExecutionException closed) {
      problems.clear(call);
      call.result()
          .completeExceptionally(new IllegalStateException("the Postgres WAL pool is closed"));
    }
  }

  private <T> void run(Call<T> call, int attempt) {
    T value;
    try (Connection connection = pool.getConnection()) {
      value = call.work().run(connection);
    } catch (SQLException | RuntimeException e) {
      if (!TransientFailures.isTransient(e)) {
        problems.clear(call);
        call.result().completeExceptionally(e);
        return;
      }
      retryLater(call, attempt, e);
      return;
    }
    problems.clear(call);
    call.result().complete(value);
  }

  private <T> void retryLater(Call<T> call, int attempt, Exception failure) {
    long backoffNanos = BACKOFF.ceilingNanos(attempt);
    String problem = call.what() + " failed: " + failure.getMessage();
    problems.report(call, problem);
    // The first failure and every tenth after it: an outage of minutes logs a line every ~10 s.
    if (attempt == 1 || attempt % 10 == 0) {
      LOG.warn(
          "{} (attempt {}), retrying in {} ms",
          problem,
          attempt,
          TimeUnit.NANOSECONDS.toMillis(backoffNanos));
    }
    scheduler.schedule(() -> attempt(call, attempt + 1), backoffNanos);
  }
}
