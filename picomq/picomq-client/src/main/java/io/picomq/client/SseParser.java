package io.picomq.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Reads Server-Sent Events from a byte stream, as the HTML standard defines the format: lines end
 * with CR LF, LF or CR; {@code field: value} with one optional space after the colon; lines
 * starting with {@code :} are comments; a blank line dispatches the event. Owned by one thread.
 */
final class SseParser {

  private final InputStream in;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
  private boolean skipLf;

  // The event being assembled.
  private String type = "";
  private String id;
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;

  SseParser(InputStream in) {
    this.in = in;
  }

  /** The next event; empty at the end of the stream (a partial event at the end is dropped). */
  Optional<SseEvent> next() throws IOException {
    while (true) {
      Optional<String> text = readLine();
      if (text.isEmpty()) {
        return Optional.empty();
      }
      String current = text.get();
      if (current.isEmpty()) {
        if (hasData || !type.isEmpty()) {
          SseEvent event =
              new SseEvent(
                  type.isEmpty() ? "message" : type, Optional.ofNullable(id), data.toString());
          type = "";
          data.setLength(0);
          hasData = false;
          return Optional.of(event);
        }
        continue;
      }
      field(current);
    }
  }

  private void field(String current) {
    if (current.startsWith(":")) {
      return;
    }
    int colon = current.indexOf(':');
    String name = colon < 0 ? current : current.substring(0, colon);
    String value = colon < 0 ? "" : current.substring(colon + 1);
    if (value.startsWith(" ")) {
      value = value.substring(1);
    }
    switch (name) {
      case "event" -> type = value;
      case "data" -> {
        if (hasData) {
          data.append('\n');
        }
        data.append(value);
        hasData = true;
      }
      case "id" -> id = value;
      default -> {
        // retry and unknown fields mean nothing to this client
      }
    }
  }

  private Optional<String> readLine() throws IOException {
    line.reset();
    while (true) {
      int b = in.read();
      if (b < 0) {
        return Optional.empty();
      }
      if (skipLf) {
        skipLf = false;
        if (b == '\n') {
          continue;
        }
      }
      if (b == '\n') {
        return Optional.of(line.toString(StandardCharsets.UTF_8));
      }
      if (b == '\r') {
        skipLf = true;
        return Optional.of(line.toString(StandardCharsets.UTF_8));
      }
      line.write(b);
    }
  }
}
