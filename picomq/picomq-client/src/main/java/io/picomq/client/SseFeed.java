package io.picomq.client;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Follows a stream over Server-Sent Events on a virtual thread, reconnecting from the seq after the
 * last result it queued whenever a response ends or fails (after a backoff if it failed). The
 * {@link LiveConsumer} takes results from the queue; the queue is bounded, so a consumer that stops
 * polling stops the feed from reading (and the server from sending).
 *
 * <p>Queue items are {@link ReadResult}s and, last, a {@link PicoException} a retry cannot fix.
 * Threading: {@code position}, {@code cursor} and {@code failures} belong to the feed's thread;
 * {@code body} is volatile so that {@link #close} can end a blocked read.
 */
final class SseFeed implements Runnable {

  private static final int QUEUE_CAPACITY = 1024;

  private final Dialect dialect;
  private final HttpTransport transport;
  private final String stream;
  private final Backoff backoff;
  private final BlockingDeque<Object> queue = new LinkedBlockingDeque<>(QUEUE_CAPACITY);

  private long position;
  private Optional<String> cursor = Optional.empty();
  private int failures;

  private volatile boolean closed;
  private volatile InputStream body;
  private volatile Thread thread;

  SseFeed(Dialect dialect, HttpTransport transport, String stream, long fromSeq, Backoff backoff) {
    this.dialect = dialect;
    this.transport = transport;
    this.stream = stream;
    this.position = fromSeq;
    this.backoff = backoff;
  }

  void start() {
    thread = Thread.ofVirtual().name("picomq-sse-" + stream).start(this);
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
          if (follow()) {
            return;
          }
          // A response that ended cleanly: reconnect at once, unless it brought nothing (then a
          // server or proxy ending responses at once must not make this a busy loop).
          if (failures > 0
              && !pause(backoff.delayNanos(failures - 1, ThreadLocalRandom.current()))) {
            return;
          }
          failures++;
        } catch (PicoException e) {
          if (closed) {
            return;
          }
          if (!e.isRetriable()) {
            put(e);
            return;
          }
          if (!pause(backoff.delayNanos(failures++, ThreadLocalRandom.current()))) {
            return;
          }
        }
      }
    } catch (InterruptedException e) {
      // closed
    }
  }

  /**
   * One response, read to its end. True when the feed is over (the stream closed and delivered),
   * false when it should reconnect.
   */
  private boolean follow() throws InterruptedException {
    HttpCall call = dialect.sse(stream, position, cursor);
    HttpResponse<InputStream> response = HttpTransport.join(transport.stream(call));
    InputStream in = response.body();
    body = in;
    try (in) {
      if (closed) {
        return true;
      }
      int status = response.statusCode();
      if (status == 204) {
        // The Pico protocol's answer at the end of a sealed stream.
        long next =
            Responses.number(response.headers(), io.picomq.protocol.PicoHeaders.NEXT_SEQ)
                .orElse(position);
        put(new ReadResult(java.util.List.of(), Math.max(next, position), true, true));
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
          failures = 0;
          position = Math.max(position, result.get().nextSeq());
          put(result.get());
          if (result.get().closed()) {
            return true;
          }
        }
      }
      return false;
    } catch (IOException e) {
      throw new PicoTransportException(
          "the SSE feed of " + stream + " broke: " + e.getMessage(), e);
    } finally {
      body = null;
    }
  }

  private void put(Object item) throws InterruptedException {
    queue.putLast(item);
  }

  private boolean pause(long nanos) {
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
      return !closed;
    } catch (InterruptedException e) {
      return false;
    }
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
