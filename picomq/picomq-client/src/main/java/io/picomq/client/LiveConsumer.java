package io.picomq.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The {@link Consumer}. Its one invariant: {@code position} is the seq after the last record
 * delivered, and every read starts there, so records are delivered once each, in order, across any
 * number of failed or ended requests.
 *
 * <ul>
 *   <li>{@link LiveMode#NONE}: each poll is one catch-up read, on the polling thread.
 *   <li>{@link LiveMode#LONG_POLL} and {@link LiveMode#SSE}: a {@link LiveFeed} follows the stream
 *       on its own thread and hands results over through a queue; a long-poll thus outlives the
 *       poll that started it instead of being abandoned.
 * </ul>
 *
 * <p>Threading: one thread polls; the fields are owned by it. {@link #close} may come from any
 * thread.
 */
final class LiveConsumer implements Consumer {

  private static final int MAX_MERGED_RECORDS = 10_000;

  private final Dialect dialect;
  private final HttpTransport transport;
  private final String stream;
  private final ConsumerOptions options;
  private final RetryBackoff backoff;
  private final RetryListener retryListener;

  // Owned by the polling thread.
  private long position = -1;
  private boolean upToDate;
  private boolean streamClosed;
  private long retryAtNanos;
  private int failures;

  // Written by the polling thread, read by close().
  private volatile LiveFeed feed;
  private volatile boolean closed;

  LiveConsumer(
      Dialect dialect,
      HttpTransport transport,
      String stream,
      ConsumerOptions options,
      RetryListener retryListener) {
    this.dialect = dialect;
    this.transport = transport;
    this.stream = stream;
    this.options = options;
    this.backoff = new RetryBackoff(options.retryBackoffBase(), options.retryBackoffMax(), 0.2);
    this.retryListener = retryListener;
    options.fromSeq().ifPresent(seq -> position = seq);
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public boolean isClosed() {
    return streamClosed;
  }

  @Override
  public ReadResult poll(Duration timeout) {
    if (closed) {
      throw new IllegalStateException("the consumer is closed");
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    if (streamClosed) {
      return empty();
    }
    if (position < 0 && !resolveTail(deadline)) {
      return empty();
    }
    return options.live() == LiveMode.NONE ? pollOnce(deadline) : pollFeed(deadline);
  }

  /** A consumer from the tail learns where the tail is on its first poll. */
  private boolean resolveTail(long deadline) {
    while (pauseUntilRetry(deadline)) {
      try {
        position = dialect.head(stream).nextSeq();
        failures = 0;
        return true;
      } catch (PicoException e) {
        onFailure(e);
      }
    }
    return false;
  }

  private ReadResult pollOnce(long deadline) {
    while (pauseUntilRetry(deadline)) {
      try {
        ReadRequest request = ReadRequest.from(position).maxRecords(options.maxRecords());
        Dialect.ReadAnswer answer = dialect.read(stream, request, Optional.empty());
        failures = 0;
        return deliver(answer.result());
      } catch (PicoException e) {
        onFailure(e);
      }
    }
    return empty();
  }

  private ReadResult pollFeed(long deadline) {
    LiveFeed running = feed;
    if (running == null) {
      running =
          new LiveFeed(
              dialect,
              transport,
              stream,
              position,
              options.live(),
              options.maxRecords(),
              backoff,
              retryListener);
      feed = running;
      running.start();
      if (closed) {
        running.close();
      }
    }
    Object item;
    try {
      item = running.take(Math.max(0, deadline - System.nanoTime()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return empty();
    }
    List<ReadRecord> records = new ArrayList<>();
    ReadResult last = null;
    while (item != null) {
      if (item instanceof PicoException error) {
        if (last == null) {
          throw error;
        }
        running.pushBack(error);
        break;
      }
      ReadResult result = (ReadResult) item;
      records.addAll(result.records());
      last = result;
      if (result.closed() || records.size() >= MAX_MERGED_RECORDS) {
        break;
      }
      item = running.poll();
    }
    if (last == null) {
      return empty();
    }
    return deliver(new ReadResult(records, last.nextSeq(), last.upToDate(), last.closed()));
  }

  /**
   * Takes a result: drops records before {@code position} (a resumed feed may repeat some), moves
   * {@code position} on.
   */
  private ReadResult deliver(ReadResult result) {
    List<ReadRecord> fresh = new ArrayList<>(result.records().size());
    for (ReadRecord record : result.records()) {
      if (record.seq() >= position) {
        fresh.add(record);
      }
    }
    position = Math.max(position, result.nextSeq());
    upToDate = result.upToDate();
    streamClosed = result.closed();
    return new ReadResult(fresh, position, upToDate, streamClosed);
  }

  private ReadResult empty() {
    return new ReadResult(List.of(), Math.max(position, 0), upToDate, streamClosed);
  }

  /**
   * A failure: retried after a pause when a retry may help (transport failures, 5xx, a 503 no
   * sooner than its Retry-After), thrown otherwise.
   */
  private void onFailure(PicoException error) {
    if (closed) {
      throw new IllegalStateException("the consumer is closed", error);
    }
    if (!error.isRetriable()) {
      throw error;
    }
    long pause = backoff.pauseNanos(failures++, ThreadLocalRandom.current(), error);
    RetryListener.notify(retryListener, error, pause);
    retryAtNanos = System.nanoTime() + pause;
  }

  /**
   * Sleeps until the next retry may go. False if the deadline comes first; a first try always goes,
   * so a zero timeout still reads once.
   */
  private boolean pauseUntilRetry(long deadline) {
    if (failures == 0) {
      return true;
    }
    long now = System.nanoTime();
    long sleep = Math.min(retryAtNanos - now, deadline - now);
    if (sleep > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(sleep);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return retryAtNanos - System.nanoTime() <= 0 && !closed;
  }

  @Override
  public void close() {
    closed = true;
    LiveFeed running = feed;
    if (running != null) {
      running.close();
    }
  }
}
