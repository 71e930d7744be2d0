package io.picomq.cli.bench;

import io.picomq.cli.CommandFailures;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * One {@code pico bench} run: creates the streams, starts the readers and then the writers on
 * virtual threads, prints a progress line every interval from the calling thread, lets the readers
 * catch up once the writers stop, deletes the streams and builds the report.
 *
 * <p>Threading: writers and readers only touch {@link Measurements} (wait-free) and the per-stream
 * counters (atomic); the calling thread alone takes interval snapshots and builds the report.
 */
final class BenchRun {
  private static final Duration POLL = Duration.ofMillis(200);

  private final BenchConfig config;
  private final BenchTarget target;
  private final PrintStream progress;
  private final LongSupplier nanoTime;

  // Read by the shutdown hook that deletes the streams on Ctrl-C, hence thread-safe.
  private final List<String> streams = new CopyOnWriteArrayList<>();
  private final AtomicReference<String> firstError = new AtomicReference<>();
  private AtomicLongArray written;
  private AtomicLongArray read;
  private volatile boolean writersDone;
  private volatile boolean stopReaders;
  private volatile boolean aborted;
  private final CountDownLatch finished = new CountDownLatch(1);

  /**
   * @param progress where progress lines and warnings go (stderr)
   * @param nanoTime the clock ({@link System#nanoTime} outside tests)
   */
  BenchRun(BenchConfig config, BenchTarget target, PrintStream progress, LongSupplier nanoTime) {
    this.config = config;
    this.target = target;
    this.progress = progress;
    this.nanoTime = nanoTime;
  }

  /** The names of this run's streams (known once {@link #run} has created them). */
  List<String> streams() {
    return List.copyOf(streams);
  }

  /**
   * Stops the run early (Ctrl-C): writers send nothing more, readers stop, and {@link #run} deletes
   * the streams and returns what it measured so far. Any thread may call it.
   */
  void abort() {
    aborted = true;
    stopReaders = true;
  }

  /** Waits until {@link #run} has returned (and deleted its streams). */
  boolean awaitFinished(Duration timeout) throws InterruptedException {
    return finished.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Runs the workload and returns the report; deletes the streams whatever happens. */
  BenchReport run(BenchReport.Settings settings) throws InterruptedException {
    String prefix =
        "pico-bench-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    written = new AtomicLongArray(config.streams());
    read = new AtomicLongArray(config.streams());
    try {
      for (int s = 0; s < config.streams(); s++) {
        String name = prefix + "-" + s;
        target.create(name);
        streams.add(name);
      }
      return measure(settings);
    } finally {
      deleteStreams();
      finished.countDown();
    }
  }

  private BenchReport measure(BenchReport.Settings settings) throws InterruptedException {
    long start = nanoTime.getAsLong();
    long measureFrom = start + config.warmup().toNanos();
    long end = measureFrom + config.duration().toNanos();
    Measurements measurements = new Measurements(measureFrom);

    List<Thread> readers = new ArrayList<>();
    if (!config.writeOnly()) {
      for (int s = 0; s < config.streams(); s++) {
        int stream = s;
        readers.add(
            Thread.ofVirtual()
                .name("bench-reader-" + s)
                .start(() -> readLoop(stream, measurements)));
      }
    }
    List<BenchTarget.Producer> producers = new ArrayList<>();
    if (config.producer()) {
      for (String stream : streams) {
        producers.add(target.producer(stream));
      }
    }
    List<Thread> writers = new ArrayList<>();
    for (int w = 0; w < config.writers(); w++) {
      Schedule schedule =
          new Schedule(start, config.rate(), config.writers(), w, config.unitRecords());
      int writer = w;
      Runnable loop =
          config.producer()
              ? () -> produceLoop(writer, schedule, end, producers, measurements)
              : () -> appendLoop(writer, schedule, end, measurements);
      writers.add(Thread.ofVirtual().name("bench-writer-" + w).start(loop));
    }

    Ticker ticker = new Ticker(start, measurements);
    ticker.until(() -> writers.stream().noneMatch(Thread::isAlive), measureFrom);
    long writersEnd = nanoTime.getAsLong();
    ticker.writersEnded(writersEnd);
    for (BenchTarget.Producer producer : producers) {
      producer.close();
    }
    writersDone = true;

    ticker.until(() -> readers.stream().noneMatch(Thread::isAlive), measureFrom);
    stopReaders = true;
    for (Thread reader : readers) {
      reader.join();
    }
    ticker.last(measureFrom);
    return report(settings, measurements, (writersEnd - measureFrom) / 1e9);
  }

  private void appendLoop(int writer, Schedule schedule, long end, Measurements measurements) {
    int stream = writer % config.streams();
    int connection = writer % config.connections();
    String name = streams.get(stream);
    long seq = 0;
    for (long k = 0; ; k++) {
      long due = schedule.dueNanos(k, nanoTime.getAsLong());
      if (due >= end || aborted) {
        return;
      }
      sleepUntil(due);
      List<byte[]> bodies = new ArrayList<>(config.recordsPerAppend());
      for (int i = 0; i < config.recordsPerAppend(); i++) {
        bodies.add(new BenchRecord(writer, seq++, due).encode(config.recordSize()));
      }
      try {
        target.append(connection, name, bodies);
        written.addAndGet(stream, bodies.size());
        measurements.acknowledged(
            due, nanoTime.getAsLong(), bodies.size(), (long) bodies.size() * config.recordSize());
      } catch (RuntimeException e) {
        measurements.failed(1);
        noteError(e);
        // A server that refuses everything must not turn the writers into a busy loop.
        LockSupport.parkNanos(10_000_000L);
      }
    }
  }

  private void produceLoop(
      int writer,
      Schedule schedule,
      long end,
      List<BenchTarget.Producer> producers,
      Measurements measurements) {
    int stream = writer % config.streams();
    BenchTarget.Producer producer = producers.get(stream);
    Semaphore window = new Semaphore(config.recordsPerAppend());
    for (long k = 0; ; k++) {
      long due;
      if (schedule.paced()) {
        due = schedule.dueNanos(k, 0);
        if (due >= end || aborted) {
          break;
        }
        sleepUntil(due);
        window.acquireUninterruptibly();
      } else {
        window.acquireUninterruptibly();
        due = nanoTime.getAsLong();
        if (due >= end || aborted) {
          window.release();
          break;
        }
      }
      long sendDue = due;
      CompletableFuture<?> sent;
      try {
        sent = producer.send(new BenchRecord(writer, k, due).encode(config.recordSize()));
      } catch (RuntimeException e) {
        // A session that refuses records (broken after a rejected batch, or full for too long)
        // will not take more: this writer stops rather than spin on the error.
        measurements.failed(1);
        noteError(e);
        window.release();
        break;
      }
      sent.whenComplete(
          (ok, error) -> {
            if (error == null) {
              written.incrementAndGet(stream);
              measurements.acknowledged(sendDue, nanoTime.getAsLong(), 1, config.recordSize());
            } else {
              measurements.failed(1);
              noteError(error);
            }
            window.release();
          });
    }
    window.acquireUninterruptibly(config.recordsPerAppend());
  }

  private void readLoop(int stream, Measurements measurements) {
    RecordFramer framer = new RecordFramer(config.recordSize());
    long lastProgress = nanoTime.getAsLong();
    try (BenchTarget.Tail tail = target.tail(streams.get(stream))) {
      while (!stopReaders) {
        List<byte[]> bodies = tail.poll(POLL);
        long now = nanoTime.getAsLong();
        for (byte[] body : bodies) {
          framer.feed(
              body,
              record -> {
                read.incrementAndGet(stream);
                measurements.delivered(record.dueNanos(), now);
              });
        }
        if (!bodies.isEmpty()) {
          lastProgress = now;
        }
        if (writersDone) {
          if (read.get(stream) >= written.get(stream)) {
            return;
          }
          if (now - lastProgress > config.drainTimeout().toNanos()) {
            progress.printf(
                Locale.ROOT,
                "pico bench: reader of %s gave up waiting: %d of %d records after %s without progress%n",
                streams.get(stream),
                read.get(stream),
                written.get(stream),
                config.drainTimeout());
            return;
          }
        }
      }
    } catch (RuntimeException e) {
      noteError(e);
      progress.println("pico bench: reader of " + streams.get(stream) + " failed: " + describe(e));
    }
  }

  private BenchReport report(
      BenchReport.Settings settings, Measurements measurements, double elapsedSeconds) {
    long measured = measurements.ackedMeasured();
    double perSecond = elapsedSeconds > 0 ? measured / elapsedSeconds : 0;
    double megabytes =
        elapsedSeconds > 0 ? measurements.ackedMeasuredBytes() / elapsedSeconds / 1e6 : 0;
    BenchReport.Writes writes =
        new BenchReport.Writes(
            measurements.acked(),
            measured,
            measurements.failed(),
            target.retries(),
            perSecond,
            megabytes,
            measurements.ackTotal());
    List<String> problems = new ArrayList<>();
    if (aborted) {
      problems.add("interrupted before the end of the run; the figures cover what ran");
    }
    if (measurements.failed() > 0) {
      problems.add(measurements.failed() + " appends failed; the first: " + firstError.get());
    }
    BenchReport.Reads reads = null;
    if (!config.writeOnly()) {
      reads = new BenchReport.Reads(measurements.delivered(), measurements.endToEndTotal());
      if (measurements.delivered() != measurements.acked()) {
        problems.add(
            "the readers received "
                + measurements.delivered()
                + " records, but "
                + measurements.acked()
                + " were acknowledged");
      }
    } else if (firstError.get() != null && measurements.failed() == 0) {
      problems.add(firstError.get());
    }
    return new BenchReport(settings, elapsedSeconds, writes, reads, problems);
  }

  private void deleteStreams() {
    for (String stream : streams) {
      try {
        target.delete(stream);
      } catch (RuntimeException e) {
        progress.println("pico bench: could not delete " + stream + ": " + describe(e));
      }
    }
  }

  private void noteError(Throwable error) {
    if (firstError.compareAndSet(null, describe(error))) {
      progress.println("pico bench: " + describe(error));
    }
  }

  private static String describe(Throwable error) {
    Throwable cause = CommandFailures.unwrap(error);
    String message = cause.getMessage();
    return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }

  private void sleepUntil(long dueNanos) {
    for (long wait = dueNanos - nanoTime.getAsLong();
        wait > 0 && !aborted;
        wait = dueNanos - nanoTime.getAsLong()) {
      // in slices, so that an abort is noticed during a slow rate's long waits
      LockSupport.parkNanos(Math.min(wait, 50_000_000L));
    }
  }

  /** Prints a progress line every interval; only the calling thread uses it. */
  private final class Ticker {
    private final long start;
    private final Measurements measurements;
    private long last;
    private long writersEnd = Long.MAX_VALUE;

    Ticker(long start, Measurements measurements) {
      this.start = start;
      this.measurements = measurements;
      this.last = start;
    }

    void writersEnded(long nanos) {
      writersEnd = nanos;
    }

    /** Ticks until {@code done} holds, checking it every few milliseconds. */
    void until(java.util.function.BooleanSupplier done, long measureFrom) {
      long interval = config.interval().toNanos();
      while (!done.getAsBoolean()) {
        LockSupport.parkNanos(5_000_000L);
        long now = nanoTime.getAsLong();
        if (interval > 0 && now - last >= interval) {
          tick(now, measureFrom);
        }
      }
    }

    /** Takes the last partial interval so the totals hold everything. */
    void last(long measureFrom) {
      long now = nanoTime.getAsLong();
      IntervalStats stats = snapshot(now, measureFrom);
      if (config.interval().toNanos() > 0 && (stats.records() > 0 || stats.delivered() > 0)) {
        progress.println(stats.line(!config.writeOnly()));
      }
    }

    private void tick(long now, long measureFrom) {
      progress.println(snapshot(now, measureFrom).line(!config.writeOnly()));
    }

    private IntervalStats snapshot(long now, long measureFrom) {
      // An interval is named after the phase it began in.
      String phase = last >= writersEnd ? "drain" : last < measureFrom ? "warmup" : "run";
      IntervalStats stats = measurements.interval(phase, (now - start) / 1e9, (now - last) / 1e9);
      last = now;
      return stats;
    }
  }
}
