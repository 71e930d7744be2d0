package io.picomq.frontend.pico;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Plain HTTP against a {@link PicoServer}, over HTTP/1.1 or HTTP/2 (h2c upgrade). */
final class PicoClient {

  static final ObjectMapper JSON = new ObjectMapper();

  final HttpClient http;
  final HttpClient.Version version;
  private final URI base;

  PicoClient(URI base, HttpClient.Version version) {
    this.base = base;
    this.version = version;
    this.http =
        HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(5)).build();
  }

  /** An answer, fully read. */
  record Answer(int status, HttpHeaders headers, byte[] body, HttpClient.Version version) {

    Optional<String> header(String name) {
      return headers.firstValue(name);
    }

    long seqHeader(String name) {
      return Long.parseLong(header(name).orElseThrow(() -> new AssertionError("no " + name)));
    }

    String text() {
      return new String(body, UTF_8);
    }

    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + text(), e);
      }
    }

    @Override
    public String toString() {
      return status + " " + headers.map() + " " + text();
    }
  }

  HttpRequest.Builder request(String method, String pathAndQuery, byte[] body) {
    return HttpRequest.newBuilder(base.resolve(pathAndQuery))
        .timeout(Duration.ofSeconds(20))
        .method(
            method,
            body.length == 0
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(body));
  }

  Answer send(String method, String pathAndQuery, Map<String, String> headers, byte[] body) {
    HttpRequest.Builder request = request(method, pathAndQuery, body);
    headers.forEach(request::header);
    return send(request.build());
  }

  Answer send(HttpRequest request) {
    try {
      HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      return new Answer(
          response.statusCode(), response.headers(), response.body(), response.version());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  Answer get(String pathAndQuery, String... headerPairs) {
    return send("GET", pathAndQuery, pairs(headerPairs), new byte[0]);
  }

  Answer head(String path) {
    return send("HEAD", path, Map.of(), new byte[0]);
  }

  Answer delete(String path) {
    return send("DELETE", path, Map.of(), new byte[0]);
  }

  Answer put(String path, String body, String... headerPairs) {
    return send("PUT", path, pairs(headerPairs), body.getBytes(UTF_8));
  }

  Answer post(String path, String body, String... headerPairs) {
    return send("POST", path, pairs(headerPairs), body.getBytes(UTF_8));
  }

  Answer post(String path, byte[] body, String... headerPairs) {
    return send("POST", path, pairs(headerPairs), body);
  }

  private static Map<String, String> pairs(String... headerPairs) {
    if (headerPairs.length % 2 != 0) {
      throw new IllegalArgumentException("headers come in name, value pairs");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 0; i < headerPairs.length; i += 2) {
      headers.put(headerPairs[i], headerPairs[i + 1]);
    }
    return headers;
  }
}
