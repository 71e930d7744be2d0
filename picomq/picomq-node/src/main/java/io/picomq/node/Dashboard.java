package io.picomq.node;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.picomq.frontend.http.Exchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The dashboard's static files, bundled in the jar: one page and its script, which poll the admin
 * API from the browser. The node renders nothing itself, so the page cannot drift from the API.
 */
final class Dashboard {
  private static final String ROOT = "/io/picomq/node/dashboard/";

  /** Request path to (resource file, content type). */
  private static final Map<String, String[]> FILES =
      Map.of(
          "/", new String[] {"index.html", "text/html; charset=utf-8"},
          "/index.html", new String[] {"index.html", "text/html; charset=utf-8"},
          "/dashboard.js", new String[] {"dashboard.js", "text/javascript; charset=utf-8"},
          "/dashboard.css", new String[] {"dashboard.css", "text/css; charset=utf-8"});

  private Dashboard() {}

  /** Answers {@code exchange} when it asks for one of the dashboard's files; false otherwise. */
  static boolean serve(Exchange exchange) {
    String[] file = FILES.get(exchange.path());
    if (file == null) {
      return false;
    }
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, file[1]);
    headers.set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
    exchange.respond(HttpResponseStatus.OK, headers, read(file[0]));
    return true;
  }

  private static byte[] read(String name) {
    try (InputStream in = Dashboard.class.getResourceAsStream(ROOT + name)) {
      if (in == null) {
        throw new IllegalStateException("the jar lacks the dashboard file " + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
