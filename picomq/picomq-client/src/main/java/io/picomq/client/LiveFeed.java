package io.picomq.client;

import io.picomq.protocol.PicoHeaders;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Follows a stream live — by long-polls or over one Server-Sent Events response after another — on
 * a thread of its own, and hands results to the {@link LiveConsumer} through a bounded queue (a
 * consumer that stops polling stops the feed from reading, and the server from sending). Every
 * request starts at the seq after the last result queued, so a failed or ended request loses and
 * repeats nothing; failures are retried after an exponential backoff.
 *
 * <p>A platform thread, not a virtual one: the SDK runs inside applications that may pin every
 * carrier thread (blocking pipe reads, {@code synchronized} I/O), and a feed that can never be
 * scheduled would stall silently. One thread per live consumer is the price.
 *
 * <p>Queue items are {@link ReadResult}s and, last, a {@link PicoException} a retry cannot fix.
 * Threading: {@code position}, {@code cursor} and {@code failures} belong to the feed's thread;
 * {@code body} is volatile so that {@link #close} can end a blocked read.
 */
final class LiveFeed implements Runnable {

  private static final int QUEUE_CAPACITY = 1024;

  private final Dialect dialect;
  private final HttpTransport transport;
  private final String stream;
  private final LiveMode mode;
  private final int maxRecords;
  private final RetryBackoff backoff;
  private final RetryListener retryListener;
  private final BlockingDeque<Object> queue = new LinkedBlockingDeque<>(QUEUE_CAPACITY);

  private long position;
  private Optional<String> cursor = Optional.empty();
  private int failures;

  private volatile boolean closed;
  private volatile InputStream body;
  private volatile Thread thread;

  LiveFeed(
      Dialect dialect,
      HttpTransport transport,
      String stream,
      long fromSeq,
      LiveMode mode,
      int maxRecords,
      RetryBackoff backoff,
      RetryListener retryListener) {
    if (mode == LiveMode.NONE) {
      throw new IllegalArgumentException("a live feed needs a live mode");
    }
    this.dialect = dialect;
    this.transport = transport;
    this.stream = stream;
    this.position = fromSeq;
    this.mode = mode;
    this.maxRecords = maxRecords;
    this.backoff = backoff;
    this.retryListener = retryListener;
  }

  void start() {
    thread = Thread.ofPlatform().daemon().name("picomq-live-" + stream).start(this);
  }

  /** The next item, waiting up to {@code timeoutNanos}; null if none came. */
  Object take(long timeoutNanos) throws InterruptedException {
    return queue.pollFirst(timeoutNanos, TimeUnit.NANOSECONDS);
  }

  /** The next item if one is there. */
  Object poll() {
    return queue.pollFirst();
  }

  /** Puts an error back at the head, to be thrown by the next poll. */
  void pushBack(PicoException error) {
    queue.offerFirst(error);
  }

  @Override
  public void run() {
    try {
      while (!closed) {
        try {
          boolean over = mode == LiveMode.SSE ? followSse() : longPoll();
          if (over) {
            return;
          }
        } catch (RuntimeException failure) {
          PicoException e = HttpTransport.toPicoException(failure);
          if (closed) {
            return;
          }
          if (!e.isRetriable()) {
            // Handed to the consumer, which throws it from its next poll.
            put(e);
            return;
          }
          // A 503 (the stream is being recovered, storage is failing) waits its Retry-After.
          long nanos = backoff.pauseNanos(failures++, ThreadLocalRandom.current(), e);
          RetryListener.notify(retryListener, e, nanos);
          pause(nanos);
        }
      }
    } catch (InterruptedException e) {
      // closed
    }
  }

  /** One long-poll. True when the feed is over (the stream is closed and delivered). */
  private boolean longPoll() throws InterruptedException {
    ReadRequest request = ReadRequest.from(position).maxRecords(maxRecords).longPoll(true);
    Dialect.ReadAnswer answer = dialect.read(stream, request, cursor);
    failures = 0;
    cursor = answer.cursor().or(() -> cursor);
    ReadResult result = answer.result();
    position = Math.max(position, result.nextSeq());
    if (!result.records().isEmpty() || result.closed()) {
      put(result);
    }
    return result.closed();
  }

  /**
   * One SSE response, read to its end. True when the feed is over, false when it should reconnect:
   * at once after a response that brought something, after a pause otherwise (so a server or proxy
   * that ends responses at once cannot make this a busy loop).
   */
  private boolean followSse() throws InterruptedException {
    HttpCall call = dialect.sse(stream, position, cursor);
    HttpResponse<InputStream> response = transport.stream(call);
    InputStream in = response.body();
    body = in;
    boolean delivered = false;
    try (in) {
      if (closed) {
        return true;
      }
      int status = response.statusCode();
      if (status == 204) {
        // The Pico protocol's answer at the end of a sealed stream.
        long next = Responses.number(response.headers(), PicoHeaders.NEXT_SEQ).orElse(position);
        put(new ReadResult(List.of(), Math.max(next, position), true, true));
        return true;
      }
      if (status != 200) {
        throw ErrorAnswers.from(dialect.protocol(), status, response.headers(), in.readAllBytes());
      }
      Dialect.SseDecoder decoder = dialect.sseDecoder(stream, position, response.headers());
      SseParser parser = new SseParser(new BufferedInputStream(in));
      for (Optional<SseEvent> event = parser.next(); event.isPresent(); event = parser.next()) {
        Optional<ReadResult> result = decoder.onEvent(event.get());
        cursor = decoder.cursor().or(() -> cursor);
        if (result.isPresent()) {
          delivered = true;
          failures = 0;
          position = Math.max(position, result.get().nextSeq());
          put(result.get());
          if (result.get().closed()) {
            return true;
          }
        }
      }
    } catch (IOException e) {
      throw new PicoTransportException(
          "the SSE feed of " + stream + " broke: " + e.getMessage(), e);
    } finally {
      body = null;
    }
    if (!delivered) {
      pause(backoff.delayNanos(failures++, ThreadLocalRandom.current()));
    }
    return false;
  }

  private void put(Object item) throws InterruptedException {
    queue.putLast(item);
  }

  private void pause(long nanos) throws InterruptedException {
    TimeUnit.NANOSECONDS.sleep(nanos);
  }

  void close() {
    closed = true;
    InputStream in = body;
    if (in != null) {
      try {
        in.close();
      } catch (IOException e) {
        // Closing is all we wanted.
      }
    }
    Thread running = thread;
    if (running != null) {
      running.interrupt();
    }
  }
}
