package io.picomq.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@link Consumer}. Its one invariant: {@code position} is the seq after the last record
 * delivered, and every read starts there, so records are delivered once each, in order, across any
 * number of failed or ended requests.
 *
 * <ul>
 *   <li>{@link LiveMode#NONE}: each poll is one catch-up read.
 *   <li>{@link LiveMode#LONG_POLL}: a long-poll may outlive the poll that started it; the next poll
 *       picks up its answer instead of abandoning it.
 *   <li>{@link LiveMode#SSE}: an {@link SseFeed} on a virtual thread follows the stream and hands
 *       results over through a queue.
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
  private final Backoff backoff;

  // Owned by the polling thread.
  private long position = -1;
  private boolean upToDate;
  private boolean streamClosed;
  private Optional<String> cursor = Optional.empty();
  private CompletableFuture<Dialect.ReadAnswer> pending;
  private long retryAtNanos;
  private int failures;
  private SseFeed feed;

  private volatile boolean closed;

  LiveConsumer(Dialect dialect, HttpTransport transport, String stream, ConsumerOptions options) {
    this.dialect = dialect;
    this.transport = transport;
    this.stream = stream;
    this.options = options;
    this.backoff = new Backoff(options.retryBackoffBase(), options.retryBackoffMax(), 0.2);
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
    return switch (options.live()) {
      case NONE -> pollOnce(deadline);
      case LONG_POLL -> pollLong(deadline);
      case SSE -> pollFeed(deadline);
    };
  }

  /** A consumer from the tail learns where the tail is on its first poll. */
  private boolean resolveTail(long deadline) {
    while (true) {
      if (!pauseUntilRetry(deadline)) {
        return false;
      }
      try {
        position = HttpTransport.join(dialect.head(stream)).nextSeq();
        failures = 0;
        return true;
      } catch (PicoException e) {
        onFailure(e);
      }
    }
  }

  private ReadResult pollOnce(long deadline) {
    while (true) {
      if (!pauseUntilRetry(deadline)) {
        return empty();
      }
      try {
        Dialect.ReadAnswer answer =
            HttpTransport.join(dialect.read(stream, request(false), Optional.empty()));
        failures = 0;
        return deliver(answer.result());
      } catch (PicoException e) {
        onFailure(e);
      }
    }
  }

  private ReadResult pollLong(long deadline) {
    while (true) {
      if (pending == null) {
        if (!pauseUntilRetry(deadline)) {
          return empty();
        }
        pending = dialect.read(stream, request(true), cursor);
      }
      Dialect.ReadAnswer answer;
      try {
        long remaining = deadline - System.nanoTime();
        answer = pending.get(Math.max(0, remaining), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        return empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return empty();
      } catch (ExecutionException e) {
        pending = null;
        onFailure(HttpTransport.toPicoException(e));
        continue;
      }
      pending = null;
      failures = 0;
      cursor = answer.cursor();
      ReadResult result = deliver(answer.result());
      if (!result.records().isEmpty() || result.closed() || deadline - System.nanoTime() <= 0) {
        return result;
      }
    }
  }

  private ReadResult pollFeed(long deadline) {
    if (feed == null) {
      feed = new SseFeed(dialect, transport, stream, position, backoff);
      feed.start();
    }
    Object first;
    try {
      first = feed.take(Math.max(0, deadline - System.nanoTime()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return empty();
    }
    if (first == null) {
      return empty();
    }
    List<ReadRecord> records = new ArrayList<>();
    ReadResult last = null;
    Object item = first;
    while (item != null) {
      if (item instanceof PicoException error) {
        if (records.isEmpty()) {
          throw error;
        }
        feed.pushBack(error);
        break;
      }
      ReadResult result = (ReadResult) item;
      records.addAll(result.records());
      last = result;
      if (result.closed() || records.size() >= MAX_MERGED_RECORDS) {
        break;
      }
      item = feed.poll();
    }
    if (last == null) {
      return empty();
    }
    return deliver(new ReadResult(records, last.nextSeq(), last.upToDate(), last.closed()));
  }

  private ReadRequest request(boolean longPoll) {
    return ReadRequest.from(position).maxRecords(options.maxRecords()).longPoll(longPoll);
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

  /** A failure: retried after a pause when a retry may help, thrown otherwise. */
  private void onFailure(PicoException error) {
    if (closed) {
      throw new IllegalStateException("the consumer is closed", error);
    }
    if (!error.isRetriable()) {
      throw error;
    }
    retryAtNanos = System.nanoTime() + backoff.delayNanos(failures++, ThreadLocalRandom.current());
  }

  /** Sleeps until the next retry may go; false if the deadline comes first. */
  private boolean pauseUntilRetry(long deadline) {
    long now = System.nanoTime();
    if (failures == 0 || retryAtNanos - now <= 0) {
      return deadline - now > 0 || failures == 0;
    }
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
    CompletableFuture<Dialect.ReadAnswer> inFlight = pending;
    if (inFlight != null) {
      inFlight.cancel(true);
    }
    SseFeed running = feed;
    if (running != null) {
      running.close();
    }
  }
}
