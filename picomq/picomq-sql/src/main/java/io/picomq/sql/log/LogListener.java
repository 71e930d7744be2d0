package io.picomq.sql.log;

import io.picomq.sql.backend.SqlBackend;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes this node's tailer when another node adds a log row, on Postgres: it holds one connection
 * that {@code LISTEN}s on the log's channel, to which every insert sends a notification carrying
 * its writer's id (see {@link LogTable#append}); its own writer's are ignored. The tailer then
 * reads at once instead of at its next poll, which stays the safety net: a notification lost with a
 * broken connection costs one poll interval. After each (re)connection it wakes the tailer too, for
 * the rows written while nobody listened.
 */
final class LogListener implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(LogListener.class);

  /** How long one wait for notifications lasts: also how soon a closing log's listener stops. */
  static final Duration WAIT = Duration.ofMillis(250);

  private final SqlBackend backend;
  private final String channel;
  private final String ownWriterId;
  private final Runnable wakeTailer;
  private final BooleanSupplier running;
  private final LogOptions options;

  LogListener(
      SqlBackend backend,
      String channel,
      String ownWriterId,
      Runnable wakeTailer,
      BooleanSupplier running,
      LogOptions options) {
    this.backend = backend;
    this.channel = channel;
    this.ownWriterId = ownWriterId;
    this.wakeTailer = wakeTailer;
    this.running = running;
    this.options = options;
  }

  @Override
  public void run() {
    RetryPauses backoff = new RetryPauses(options.maxRetryBackoff());
    while (running.getAsBoolean()) {
      try {
        backend.withConnection(
            connection -> {
              listen(connection, backoff);
              return null;
            });
      } catch (SQLException | RuntimeException e) {
        if (!running.getAsBoolean()) {
          return;
        }
        LOG.warn(
            "[{}] cannot listen for other nodes' log rows ({}); reading every {} until it can",
            options.name(),
            e.getMessage(),
            options.pollInterval());
        try {
          Thread.sleep(backoff.next());
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Whether a notification is another node's: this node's flusher wakes its tailer itself. */
  private boolean anotherWriters(PGNotification[] received) {
    for (PGNotification notification : received) {
      if (!ownWriterId.equals(notification.getParameter())) {
        return true;
      }
    }
    return false;
  }

  private void listen(Connection connection, RetryPauses backoff) throws SQLException {
    PGConnection postgres = connection.unwrap(PGConnection.class);
    try (Statement listen = connection.createStatement()) {
      listen.execute("LISTEN \"" + channel + "\"");
    }
    try {
      backoff.reset();
      wakeTailer.run();
      while (running.getAsBoolean()) {
        PGNotification[] received = postgres.getNotifications((int) WAIT.toMillis());
        if (received != null && anotherWriters(received)) {
          wakeTailer.run();
        }
      }
    } finally {
      // The connection goes back to the pool: it must not collect notifications for others.
      try (Statement unlisten = connection.createStatement()) {
        unlisten.execute("UNLISTEN *");
      }
    }
  }
}
