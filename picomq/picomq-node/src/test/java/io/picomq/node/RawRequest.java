package io.picomq.node;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An HTTP/1.1 request written byte for byte on a fresh socket, so a test can send what no HTTP
 * client would: raw non-UTF-8 bytes in the target and in header values, repeated headers, empty
 * values. Header values and the target are strings of chars up to U+00FF, sent one byte each.
 *
 * @param target the request target as sent (percent-escapes included), e.g. {@code /a?seq=%ff}
 * @param headers in order; {@code Content-Length} and {@code Connection: close} are added
 */
record RawRequest(
    String method, String target, List<Map.Entry<String, String>> headers, byte[] body) {

  /** The answer's status (0 when the connection closed without one) and its whole text. */
  record Answer(int status, String text) {}

  /** Sends this request and reads the answer to its end (the server closes after it). */
  Answer send(InetSocketAddress address, int timeoutMillis) {
    try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
      socket.setSoTimeout(timeoutMillis);
      OutputStream out = socket.getOutputStream();
      out.write(head().getBytes(ISO_8859_1));
      out.write(body);
      out.flush();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[8192];
      try {
        for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
          answer.write(buffer, 0, read);
        }
      } catch (SocketTimeoutException e) {
        throw new AssertionError(
            "no complete answer within " + timeoutMillis + " ms to " + this, e);
      } catch (IOException reset) {
        // A reset after the answer (the server closed with unread input) ends it as well.
      }
      String text = answer.toString(ISO_8859_1);
      return new Answer(status(text), text);
    } catch (IOException e) {
      throw new UncheckedIOException("sending " + this, e);
    }
  }

  private String head() {
    StringBuilder head = new StringBuilder();
    head.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
    boolean host = false;
    for (Map.Entry<String, String> header : headers) {
      head.append(header.getKey()).append(": ").append(header.getValue()).append("\r\n");
      host |= header.getKey().equalsIgnoreCase("Host");
    }
    if (!host) {
      head.append("Host: 127.0.0.1\r\n");
    }
    head.append("Content-Length: ").append(body.length).append("\r\n");
    head.append("Connection: close\r\n\r\n");
    return head.toString();
  }

  private static int status(String text) {
    // "HTTP/1.1 200 OK"
    if (text.length() < 12 || !text.startsWith("HTTP/1.1 ")) {
      return 0;
    }
    try {
      return Integer.parseInt(text.substring(9, 12));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  @Override
  public String toString() {
    StringBuilder described = new StringBuilder();
    described.append(method).append(' ').append(shorten(target));
    for (Map.Entry<String, String> header : headers) {
      described
          .append("\n  ")
          .append(header.getKey())
          .append(": ")
          .append(shorten(header.getValue()));
    }
    described
        .append("\n  body ")
        .append(body.length)
        .append(" bytes: ")
        .append(HexFormat.of().formatHex(body, 0, Math.min(body.length, 64)));
    return described.toString();
  }

  private static String shorten(String value) {
    StringBuilder escaped = new StringBuilder();
    for (int i = 0; i < Math.min(value.length(), 160); i++) {
      char c = value.charAt(i);
      escaped.append(
          c < 0x20 || c > 0x7e
              ? String.format(Locale.ROOT, "\\x%02x", (int) c)
              : String.valueOf(c));
    }
    return value.length() <= 160
        ? escaped.toString()
        : escaped + "... (" + value.length() + " chars)";
  }
}
