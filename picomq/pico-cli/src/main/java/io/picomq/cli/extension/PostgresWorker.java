package io.picomq.cli.extension;

import io.picomq.cli.ServeArguments;
import io.picomq.node.NodeConfig;
import io.picomq.node.NodeSupervisor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the Postgres extension's background worker calls through JNI: {@link #start} once when the
 * worker starts, {@link #stop} on its SIGTERM. The node is the one {@code pico serve} runs, under a
 * {@link NodeSupervisor}, configured by the same flags ({@link WorkerSettings#serveArguments}).
 *
 * <p>Logs: Postgres is not thread-safe, so no JVM thread may call its logging. Every line the node
 * writes (slf4j-simple, {@code System.out} and {@code System.err}) goes to the pipe the worker
 * gives {@link #start}; the worker's main thread reads it and logs each line with a {@code pico:}
 * prefix.
 *
 * <p>Threading: the worker calls both methods from its one JVM thread, {@code stop} after {@code
 * start} returned; the lock only makes that assumption safe.
 */
public final class PostgresWorker {
  private static final ReentrantLock LOCK = new ReentrantLock();

  /** Guarded by {@code LOCK}. */
  private static NodeSupervisor running;

  private PostgresWorker() {}

  /**
   * Starts the node the settings describe; logs why and returns false when it cannot (the worker
   * then exits and Postgres starts it again 5 s later).
   *
   * @param settings {@code name=value} strings, see {@link WorkerSettings}
   * @param logPath where the worker reads log lines from ({@code /proc/self/fd/N} of its pipe)
   */
  public static boolean start(String[] settings, String logPath) {
    WorkerSettings parsed;
    try {
      parsed = WorkerSettings.parse(settings);
      routeLogs(logPath, parsed.logLevel());
    } catch (IOException | RuntimeException e) {
      // No logger yet: this line reaches the pipe if System.err was routed, else Postgres's stderr.
      System.err.println("ERROR PostgresWorker - cannot start: " + e.getMessage());
      return false;
    }
    Logger log = LoggerFactory.getLogger(PostgresWorker.class);
    LOCK.lock();
    try {
      List<String> args = parsed.serveArguments();
      NodeConfig config = ServeArguments.nodeConfig(args);
      running = NodeSupervisor.start(config, Clock.systemUTC());
      log.info(
          "serving {} on {}{}; metadata {}",
          config.protocol().name().toLowerCase(java.util.Locale.ROOT),
          running.node().address(),
          running.node().adminAddress().map(a -> ", admin on " + a).orElse(""),
          running.node().metadataDescription());
      return true;
    } catch (Exception e) {
      log.error("cannot start: {}", e.getMessage(), e);
      return false;
    } finally {
      LOCK.unlock();
    }
  }

  /**
   * Stops the node: the listeners close at once (no drain), then the engine gets {@code
   * engineMillis} to flush; past that the worker exits anyway. Nothing acknowledged is lost either
   * way: an acknowledged record is in the WAL, and the next start recovers it.
   */
  public static void stop(long engineMillis) {
    Logger log = LoggerFactory.getLogger(PostgresWorker.class);
    NodeSupervisor supervisor;
    LOCK.lock();
    try {
      supervisor = running;
      running = null;
    } finally {
      LOCK.unlock();
    }
    if (supervisor == null) {
      return;
    }
    Thread closing = Thread.ofPlatform().name("pico-stop").daemon().start(supervisor::close);
    try {
      if (!closing.join(Duration.ofMillis(engineMillis))) {
        log.warn(
            "the engine did not stop within {} ms; acknowledged records are in the WAL and"
                + " recovered at the next start",
            engineMillis);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Sends {@code System.out}, {@code System.err} and slf4j-simple's lines to the worker's pipe, one
   * message per line with its level first ({@code WARN Node - ...}), which the worker maps to
   * Postgres's levels. Runs before the first logger is made: slf4j-simple reads its settings then.
   */
  private static void routeLogs(String logPath, String level) throws IOException {
    PrintStream pipe =
        new PrintStream(new FileOutputStream(logPath, true), true, StandardCharsets.UTF_8);
    System.setOut(pipe);
    System.setErr(pipe);
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level);
    // Postgres's log_line_prefix already has the time and the process.
    System.setProperty("org.slf4j.simpleLogger.showDateTime", "false");
    System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
    System.setProperty("org.slf4j.simpleLogger.showLogName", "false");
    System.setProperty("org.slf4j.simpleLogger.showShortLogName", "true");
    System.setProperty("org.slf4j.simpleLogger.levelInBrackets", "false");
  }
}
