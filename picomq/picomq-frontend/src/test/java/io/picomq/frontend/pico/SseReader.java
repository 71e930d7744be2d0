package io.picomq.frontend.pico;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Reads a Server-Sent Events response line by line on a virtual thread, the way a browser parses
 * it, and hands out whole events. Comments are counted, not returned.
 */
final class SseReader implements AutoCloseable {

  /** One dispatched event; {@code type} is {@code message} when the event named none. */
  record Event(String id, String type, String data) {

    JsonNode json() {
      try {
        return PicoClient.JSON.readTree(data);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + data, e);
      }
    }
  }

  private static final Event END = new Event(null, "end-of-response", null);

  final HttpResponse<Stream<String>> response;
  final AtomicInteger comments = new AtomicInteger();
  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

  private SseReader(HttpResponse<Stream<String>> response) {
    this.response = response;
    Thread.ofVirtual().start(this::pump);
  }

  static SseReader open(PicoClient client, String pathAndQuery, String... headerPairs) {
    HttpRequest.Builder request = client.request("GET", pathAndQuery, new byte[0]);
    request.timeout(Duration.ofSeconds(30));
    for (int i = 0; i < headerPairs.length; i += 2) {
      request.header(headerPairs[i], headerPairs[i + 1]);
    }
    try {
      return new SseReader(client.http.send(request.build(), HttpResponse.BodyHandlers.ofLines()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The next event, failing the test if none arrives in time or the response ended. */
  Event next(Duration within) throws InterruptedException {
    Event event = events.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    if (event == null) {
      throw new AssertionError("no event within " + within);
    }
    if (event == END) {
      events.add(END);
      throw new AssertionError("the response ended instead");
    }
    return event;
  }

  /** Whether the response ends (after any events still queued are skipped) within the time. */
  boolean ends(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      Event event = events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (event == null) {
        return false;
      }
      if (event == END) {
        events.add(END);
        return true;
      }
    }
  }

  private void pump() {
    String id = null;
    String type = null;
    StringBuilder data = null;
    try (Stream<String> lines = response.body()) {
      for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
        String line = it.next();
        if (line.isEmpty()) {
          if (data != null) {
            events.add(new Event(id, type == null ? "message" : type, data.toString()));
          }
          id = null;
          type = null;
          data = null;
          continue;
        }
        if (line.startsWith(":")) {
          comments.incrementAndGet();
          continue;
        }
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        String value = colon < 0 ? "" : line.substring(colon + 1);
        if (value.startsWith(" ")) {
          value = value.substring(1);
        }
        switch (field) {
          case "id" -> id = value;
          case "event" -> type = value;
          case "data" ->
              data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
          default -> {}
        }
      }
    } catch (RuntimeException closedOrBroken) {
      // The test closed the response, or the connection broke: either way, the events end.
    } finally {
      events.add(END);
    }
  }

  @Override
  public void close() {
    response.body().close();
  }
}
