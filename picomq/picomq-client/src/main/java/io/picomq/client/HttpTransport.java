package io.picomq.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse.BodySubscribers;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;

/**
 * Sends {@link HttpCall}s through one {@link HttpClient}, following redirects itself: a node that
 * does not own a stream answers {@code 307} with the owner's address, and the same method and body
 * must go there (the JDK's redirect policy would turn some of those into a GET). At most {@value
 * #MAX_REDIRECTS} hops.
 *
 * <p>Failures to get an answer become {@link PicoTransportException}; answers of any status are
 * returned as they are, for the caller to judge. Over HTTP/2 without TLS the JDK upgrades the first
 * request on a connection (h2c); the first call of a fresh client is an {@code OPTIONS} so that the
 * upgrade happens on a request without a body and later requests share the upgraded connection.
 * Every method blocks its caller; the SDK's background work runs on threads of its own.
 *
 * <p>With a token, every request this transport sends carries {@code Authorization: Bearer ...}:
 * the first one, each redirected one and the warm-up. It is added here, below the dialects, so no
 * path (appends, reads, long-polls, SSE feeds, producer sessions, retries) can miss it. A redirect
 * keeps it even to another host: a {@code 307} names the node of the same cluster that owns the
 * stream, and that node checks the same token.
 */
final class HttpTransport implements AutoCloseable {

  static final int MAX_REDIRECTS = 5;

  /** How long to wait before retrying when a redirect target refused the connection. */
  private static final Duration OWNER_UNREACHABLE_RETRY_AFTER = Duration.ofSeconds(1);

  private final HttpClient client;
  private final boolean ownsClient;
  private final boolean http2;
  private final URI warmUpUri;
  private final Map<String, String> authorization;
  private final AtomicBoolean warm = new AtomicBoolean();
  private volatile boolean closed;

  /**
   * @param ownsClient whether {@link #close} shuts {@code client} down
   * @param warmUpUri where the h2c warm-up {@code OPTIONS} goes
   * @param token sent with every request, if present
   */
  HttpTransport(HttpClient client, boolean ownsClient, URI warmUpUri, Optional<BearerToken> token) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.http2 = client.version() == HttpClient.Version.HTTP_2;
    this.warmUpUri = warmUpUri;
    this.authorization =
        token.map(t -> Map.of("Authorization", t.authorization())).orElse(Map.of());
  }

  static HttpClient newClient(boolean http2, Duration connectTimeout) {
    return newClient(http2, connectTimeout, Optional.empty());
  }

  /**
   * A client; over https:// it trusts what {@code tls} trusts, else the JDK's default CAs. Over TLS
   * HTTP/2 is chosen by ALPN, with no upgrade.
   */
  static HttpClient newClient(boolean http2, Duration connectTimeout, Optional<SSLContext> tls) {
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(http2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(connectTimeout);
    tls.ifPresent(builder::sslContext);
    return builder.build();
  }

  /** Sends {@code call} and reads the whole answer; any status is returned as it is. */
  HttpResponse<byte[]> send(HttpCall call) {
    return send(call, BodyHandlers.ofByteArray());
  }

  /** Sends {@code call}, giving the answer's body as a stream (for SSE). */
  HttpResponse<InputStream> stream(HttpCall call) {
    return send(call, BodyHandlers.ofInputStream());
  }

  /**
   * Blocking on purpose: {@link HttpClient#sendAsync} completes its futures through the common
   * fork-join pool, which an application's own blocking tasks can starve (seen with a parallelism
   * of one: answers that had arrived were never delivered). The blocking {@link HttpClient#send}
   * completes on the client's own threads.
   */
  private <T> HttpResponse<T> send(HttpCall call, BodyHandler<T> handler) {
    if (closed) {
      // Not retriable: consumers and producer sessions of a closed client stop instead of
      // retrying forever.
      throw new PicoException(
          0,
          "client_closed",
          "the client is closed: " + call.method() + " " + call.uri(),
          null,
          null);
    }
    warmUp();
    BodyHandler<T> skippingRedirects =
        info ->
            isRedirect(info.statusCode()) && info.headers().firstValue("Location").isPresent()
                ? BodySubscribers.replacing(null)
                : handler.apply(info);
    HttpCall current = call.withHeaders(authorization);
    for (int hops = 0; ; hops++) {
      HttpResponse<T> response =
          hops == 0
              ? sendOnce(current, skippingRedirects)
              : sendRedirected(current, skippingRedirects);
      int status = response.statusCode();
      if (!isRedirect(status) || response.headers().firstValue("Location").isEmpty()) {
        return response;
      }
      if (hops >= MAX_REDIRECTS) {
        throw new PicoException(
            status,
            "too_many_redirects",
            "more than " + MAX_REDIRECTS + " redirects from " + call.uri(),
            null,
            null);
      }
      URI next = current.uri().resolve(response.headers().firstValue("Location").get());
      current = current.withUri(next);
      if (status == 303 && !current.method().equals("HEAD")) {
        current = current.withMethod("GET").withBody(new byte[0]);
      }
    }
  }

  /**
   * Sends to where a node redirected the call. A redirect target that refuses the connection is the
   * stream's owner, just stopped (the node that redirected had not noticed yet): that is a passing
   * unavailability, retried like a 503 from the original endpoint, whose next answer routes around
   * the dead node. Nothing was sent, so even an append may be resent.
   */
  private <T> HttpResponse<T> sendRedirected(HttpCall call, BodyHandler<T> handler) {
    try {
      return sendOnce(call, handler);
    } catch (PicoTransportException e) {
      if (!(unwrap(e.getCause()) instanceof ConnectException)) {
        throw e;
      }
      throw new ServiceUnavailableException(
          503,
          "owner_unreachable",
          "the node serving the stream, "
              + call.uri().getAuthority()
              + ", refused the connection (it may have just stopped): "
              + e.getMessage(),
          null,
          e,
          Optional.of(OWNER_UNREACHABLE_RETRY_AFTER));
    }
  }

  private <T> HttpResponse<T> sendOnce(HttpCall call, BodyHandler<T> handler) {
    try {
      return client.send(call.toRequest(), handler);
    } catch (IOException e) {
      throw transportFailure(call, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PicoTransportException(
          "interrupted while waiting for " + call.method() + " " + call.uri(), e);
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new PicoTransportException("cannot send " + call.method() + " " + call.uri(), e);
    }
  }

  private static boolean isRedirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
  }

  private void warmUp() {
    if (!http2 || warm.get() || !warm.compareAndSet(false, true)) {
      return;
    }
    try {
      client.send(
          HttpCall.of("OPTIONS", warmUpUri, Duration.ofSeconds(10))
              .withHeaders(authorization)
              .toRequest(),
          BodyHandlers.discarding());
    } catch (IOException e) {
      // No server yet: the next request tries again.
      warm.set(false);
    } catch (InterruptedException e) {
      warm.set(false);
      Thread.currentThread().interrupt();
    }
  }

  static PicoException transportFailure(HttpCall call, Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof PicoException pico) {
      return pico;
    }
    return new PicoTransportException(
        call.method() + " " + call.uri() + " failed: " + describe(cause), cause);
  }

  /** {@code failure} as the SDK reports it: a {@link PicoException} as it is, else wrapped. */
  static PicoException toPicoException(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof PicoException pico) {
      return pico;
    }
    if (cause instanceof RuntimeException && !(cause instanceof CancellationException)) {
      return new PicoException(0, "client_error", describe(cause), null, cause);
    }
    return new PicoTransportException(describe(cause), cause);
  }

  private static String describe(Throwable cause) {
    String message = cause.getMessage();
    return cause.getClass().getSimpleName() + (message == null ? "" : " (" + message + ")");
  }

  static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  @Override
  public void close() {
    closed = true;
    if (ownsClient) {
      client.shutdownNow();
    }
  }
}
