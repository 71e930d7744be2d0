package io.picomq.s3stream.pgwal;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Set;

/**
 * Which database failures are outages that retrying outlives (the WAL waits), and which are lasting
 * (the WAL fails).
 *
 * <p>Transient: the connection broke or could not be made (SQLSTATE class 08, a pool timeout, an
 * I/O error), the server is shutting down, restarting or terminated our backend (57P01..57P03), ran
 * out of resources (class 53: too many connections, disk full), hit an I/O error (class 58), rolled
 * a transaction back (class 40: deadlock, serialization), or is a read-only standby during a
 * failover (25006). Lasting: everything else, such as a permission denied or a missing table, which
 * no amount of waiting fixes.
 */
final class TransientFailures {

  private static final Set<String> TRANSIENT_CLASSES = Set.of("08", "53", "58", "40");
  private static final Set<String> TRANSIENT_STATES =
      Set.of("57P01", "57P02", "57P03", "57014", "25006");

  private TransientFailures() {}

  static boolean isTransient(Throwable failure) {
    if (failure instanceof SQLTransientException || failure instanceof SQLRecoverableException) {
      return true;
    }
    if (failure instanceof SQLException sql) {
      String state = sql.getSQLState();
      if (state != null && state.length() == 5) {
        return TRANSIENT_CLASSES.contains(state.substring(0, 2))
            || TRANSIENT_STATES.contains(state);
      }
      return sql.getCause() instanceof IOException;
    }
    return false;
  }
}
