package io.picomq.client;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import javax.net.ssl.SSLContext;

/**
 * A client of one PicoMQ listener, speaking either the Pico protocol or Durable Streams over
 * java.net.http (HTTP/1.1, or HTTP/2: via the h2c upgrade, or ALPN over {@code https://}).
 * Thread-safe; share one per endpoint. The blocking methods here each make one request (following
 * up to 5 redirects to a stream's owner), or more when the server is unavailable (see below);
 * {@link #consumer} and {@link #producer} give long-lived helpers that retry by themselves.
 *
 * <p>Seqs are {@code long}s under both protocols: Durable Streams offsets are translated (their
 * second half is the seq), so code written against one protocol runs against the other. Operations
 * one protocol lacks ({@link #list} and {@link #trim} under Durable Streams) throw {@link
 * UnsupportedByProtocolException} without sending anything.
 *
 * <pre>{@code
 * try (PicoClient client = PicoClient.builder().endpoint(URI.create("http://127.0.0.1:4437")).build()) {
 *   client.create("orders", CreateOptions.defaults());
 *   client.append("orders", List.of(Record.of("hello")));
 *   ReadResult read = client.read("orders", ReadRequest.from(0));
 * }
 * }</pre>
 *
 * <h2>Retries and unavailability</h2>
 *
 * <p>A server that cannot serve a request now answers {@code 503} (or {@code 507} for a full disk)
 * with a {@code Retry-After}; the SDK throws that as {@link ServiceUnavailableException}. Calls
 * that are safe to repeat retry it by themselves for up to {@link Builder#retryUnavailable}
 * (default 30 s), pausing per the shared backoff and never sooner than {@code Retry-After}:
 *
 * <ul>
 *   <li>{@link #head}, {@link #read}, {@link #list}: reads;
 *   <li>{@link #create}: the protocol makes it idempotent (a create that already happened is
 *       confirmed if the settings match, and a {@link ConflictException} says they do not);
 *   <li>{@link #trim} and {@link #close}: trimming to the same seq or sealing a sealed stream again
 *       changes nothing;
 *   <li>{@link #append} with a producer stamp: the server answers a resend it already has as a
 *       duplicate;
 *   <li>consumers (catch-up, long-poll, SSE) and producer sessions, always (see {@link Consumer}
 *       and {@link ProducerSession}).
 * </ul>
 *
 * <p>Not retried: a plain {@link #append} unless its options ask ({@link
 * AppendOptions#retryUnavailable}), because a 503 may come from an append that still completes, and
 * its resend would write the records twice; and {@link #delete}, whose retry after a delete that
 * did complete would answer "not found". Redirects ({@code 307} to a stream's owner) are followed
 * within each attempt, and every retry starts again at this client's endpoint.
 *
 * <h2>Tokens</h2>
 *
 * <p>A node with access control wants {@code Authorization: Bearer <token>} on every request: give
 * the token to {@link Builder#token}, and every request carries it, including a consumer's
 * long-polls and SSE feeds, a producer session's batches, retries and redirects to a stream's
 * owner. A missing or invalid token is {@link UnauthorizedException}, one whose scope does not
 * cover the request {@link ForbiddenException}; neither is retried.
 */
public final class PicoClient implements AutoCloseable {

  /** The endpoint a client uses when none is given. */
  public static final URI DEFAULT_ENDPOINT = URI.create("http://127.0.0.1:4437");

  /**
   * How much longer than a plain request a long-poll may take: the server's wait (25 s) and more.
   */
  private static final Duration LIVE_GRACE = Duration.ofSeconds(60);

  /** How long calls that are safe to repeat keep retrying 503 by default. */
  public static final Duration DEFAULT_RETRY_UNAVAILABLE = Duration.ofSeconds(30);

  private final URI endpoint;
  private final Protocol protocol;
  private final boolean http2;
  private final Duration requestTimeout;
  private final Duration connectTimeout;
  private final HttpTransport transport;
  private final Dialect dialect;
  private final Duration retryUnavailable;
  private final RetryListener retryListener;
  private final UnavailableRetry retry;
  private final Optional<BearerToken> token;
  private final Optional<SSLContext> tls;

  private PicoClient(Builder builder) {
    this.endpoint = builder.endpoint == null ? DEFAULT_ENDPOINT : builder.endpoint;
    this.protocol = builder.protocol == null ? Protocol.PICO : builder.protocol;
    this.http2 = builder.http2 != null && builder.http2;
    this.requestTimeout =
        builder.requestTimeout == null ? Duration.ofSeconds(30) : builder.requestTimeout;
    this.connectTimeout =
        builder.connectTimeout == null ? Duration.ofSeconds(10) : builder.connectTimeout;
    this.retryUnavailable =
        builder.retryUnavailable == null ? DEFAULT_RETRY_UNAVAILABLE : builder.retryUnavailable;
    this.retryListener = builder.retryListener == null ? RetryListener.NONE : builder.retryListener;
    this.retry = new UnavailableRetry(retryListener);
    this.token = Optional.ofNullable(builder.token);
    this.tls = Optional.ofNullable(builder.caCertificate).map(TrustedCertificates::context);
    Endpoints endpoints = new Endpoints(endpoint, protocol);
    this.transport =
        new HttpTransport(
            HttpTransport.newClient(http2, connectTimeout, tls),
            true,
            endpoints.root(Map.of()),
            token);
    Duration liveTimeout = requestTimeout.plus(LIVE_GRACE);
    this.dialect =
        protocol == Protocol.PICO
            ? new PicoDialect(transport, endpoints, requestTimeout, liveTimeout)
            : new DsDialect(transport, endpoints, requestTimeout, liveTimeout);
  }

  /** A builder with every setting at its default. */
  public static Builder builder() {
    return new Builder();
  }

  /** The endpoint this client talks to. */
  public URI endpoint() {
    return endpoint;
  }

  /** The protocol this client speaks. */
  public Protocol protocol() {
    return protocol;
  }

  /** Whether this client speaks HTTP/2 (h2c). */
  public boolean http2() {
    return http2;
  }

  /**
   * Creates a stream, or confirms it exists with the same configuration (idempotent).
   *
   * @throws ConflictException if it exists with another content type (or other settings)
   */
  public StreamInfo create(String stream, CreateOptions options) {
    return retry.call(retryUnavailable, () -> dialect.create(stream, options));
  }

  /**
   * A stream's current state. (Durable Streams does not report a stream's first seq: {@code
   * startSeq} is 0 there.)
   *
   * @throws StreamNotFoundException if it does not exist
   */
  public StreamInfo head(String stream) {
    return retry.call(retryUnavailable, () -> dialect.head(stream));
  }

  /** Appends {@code records} as one batch: consecutive seqs, durable all together. */
  public AppendResult append(String stream, List<Record> records) {
    return append(stream, records, AppendOptions.defaults());
  }

  /**
   * Appends {@code records} with conditions. Under the Pico protocol they are one batch:
   * consecutive seqs, durable together, all or nothing. Under Durable Streams a JSON stream takes
   * them as one array (also atomic), any other stream as one request per record (each atomic; a
   * failure part way leaves the earlier ones appended). An empty list with {@link
   * AppendOptions#close} only seals the stream.
   *
   * <p>With a producer stamp, a retry of the same call (same records, same stamp) is answered
   * {@link AppendResult#duplicate() duplicate} instead of appending again; such an append also
   * retries {@code 503} by itself (see the class comment), a plain one only when {@link
   * AppendOptions#retryUnavailable} asks. Under Durable Streams, the requests of one call share
   * that budget, and each is resent on its own (never an earlier one that succeeded).
   *
   * @throws StreamNotFoundException if the stream does not exist
   * @throws StreamClosedException if it is sealed
   * @throws SeqMismatchException if {@link AppendOptions#matchSeq} does not hold
   * @throws ProducerConflictException if the producer seq is not the one expected
   * @throws StaleProducerEpochException if the producer was fenced by a newer epoch
   * @throws ServiceUnavailableException if the server was unavailable (for longer than the retry
   *     budget, if any)
   * @throws UnsupportedByProtocolException for record headers or {@code matchSeq} under Durable
   *     Streams
   */
  public AppendResult append(String stream, List<Record> records, AppendOptions options) {
    List<Record> copy = List.copyOf(records);
    // Preparing may ask for the stream's content type (Durable Streams): a read, safe to retry.
    List<Dialect.PreparedAppend> appends =
        retry.call(retryUnavailable, () -> dialect.prepare(stream, copy, options));
    Duration budget =
        options
            .retryUnavailable()
            .orElse(options.producer().isPresent() ? retryUnavailable : Duration.ZERO);
    UnavailableRetry.Deadline deadline = UnavailableRetry.deadline(budget);
    AppendResult first = null;
    AppendResult last = null;
    for (Dialect.PreparedAppend append : appends) {
      last = retry.call(deadline, () -> dialect.send(append));
      if (first == null) {
        first = last;
      }
    }
    return new AppendResult(
        first.startSeq(), last.nextSeq(), last.timestampMillis(), last.duplicate());
  }

  /**
   * Reads records once (one request).
   *
   * @throws StreamNotFoundException if the stream does not exist
   * @throws BadRequestException if {@code request} starts past the tail
   */
  public ReadResult read(String stream, ReadRequest request) {
    return retry.call(
        retryUnavailable, () -> dialect.read(stream, request, Optional.empty()).result());
  }

  /**
   * One page of streams, in name order.
   *
   * @throws UnsupportedByProtocolException under Durable Streams
   */
  public ListPage list(ListRequest request) {
    return retry.call(retryUnavailable, () -> dialect.list(request));
  }

  /**
   * Drops the records below {@code beforeSeq}.
   *
   * @throws UnsupportedByProtocolException under Durable Streams
   * @throws BadRequestException if {@code beforeSeq} is past the tail
   */
  public void trim(String stream, long beforeSeq) {
    OptionChecks.notNegative(beforeSeq, "beforeSeq");
    retry.call(
        retryUnavailable,
        () -> {
          dialect.trim(stream, beforeSeq);
          return null;
        });
  }

  /** Seals a stream: it takes no more appends. Sealing a sealed stream succeeds. */
  public AppendResult close(String stream) {
    return retry.call(retryUnavailable, () -> dialect.close(stream));
  }

  /**
   * Deletes a stream. Not retried after {@code 503}: a retry of a delete that did complete would
   * answer {@link StreamNotFoundException}; catch {@link ServiceUnavailableException} and decide.
   *
   * @throws StreamNotFoundException if it does not exist
   */
  public void delete(String stream) {
    dialect.delete(stream);
  }

  /** A consumer that follows {@code stream}; see {@link Consumer}. Sends nothing yet. */
  public Consumer consumer(String stream, ConsumerOptions options) {
    Endpoints.name(stream);
    return new LiveConsumer(dialect, transport, stream, options, retryListener);
  }

  /**
   * An idempotent producer session on {@code stream}; see {@link ProducerSession}. Under Durable
   * Streams this asks for the stream's content type first (a JSON stream batches records into
   * arrays; any other appends one record per request).
   *
   * @throws StreamNotFoundException under Durable Streams, if the stream does not exist
   */
  public ProducerSession producer(String stream, ProducerOptions options) {
    int maxBatchRecords = options.maxBatchRecords();
    if (dialect instanceof DsDialect ds
        && !DsDialect.isJson(retry.call(retryUnavailable, () -> ds.contentType(stream)))) {
      maxBatchRecords = 1;
    }
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("picomq-producer-timer-" + stream).factory());
    // Sender threads: at most maxInFlightRequests are busy at once; idle ones end after a minute.
    ExecutorService senders =
        Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("picomq-producer-" + stream + "-", 0).factory());
    return new BatchingProducer(
        dialect, stream, options, maxBatchRecords, scheduler, senders, retryListener);
  }

  /**
   * A client of the admin listener at {@code adminEndpoint}, with this client's HTTP settings and
   * token (which then needs the {@code admin} audience).
   */
  public AdminClient admin(URI adminEndpoint) {
    return new HttpAdminClient(
        adminEndpoint,
        HttpTransport.newClient(http2, connectTimeout, tls),
        true,
        requestTimeout,
        token);
  }

  /**
   * Releases the HTTP client: requests in flight fail, consumers and producer sessions made by it
   * stop working. Close producer sessions first to let their records through.
   */
  @Override
  public void close() {
    transport.close();
  }

  /**
   * Builds a {@link PicoClient}. Each setting may be made once; setting one twice fails instead of
   * the last one silently winning.
   */
  public static final class Builder {
    private URI endpoint;
    private Protocol protocol;
    private Boolean http2;
    private Duration requestTimeout;
    private Duration connectTimeout;
    private Duration retryUnavailable;
    private RetryListener retryListener;
    private BearerToken token;
    private Path caCertificate;

    private Builder() {}

    /** The listener's base URI (default {@code http://127.0.0.1:4437}). */
    public Builder endpoint(URI endpoint) {
      this.endpoint = OptionChecks.once(this.endpoint, endpoint, "endpoint");
      return this;
    }

    /** The protocol the listener speaks (default {@link Protocol#PICO}). */
    public Builder protocol(Protocol protocol) {
      this.protocol = OptionChecks.once(this.protocol, protocol, "protocol");
      return this;
    }

    /**
     * Whether to speak HTTP/2 (h2c, by upgrading the first request; over {@code https://} chosen by
     * ALPN) rather than HTTP/1.1 (default false). Over HTTP/2 all requests share one connection.
     */
    public Builder http2(boolean http2) {
      this.http2 = OptionChecks.once(this.http2, http2, "http2");
      return this;
    }

    /**
     * How long a request may take until its answer begins (default 30 s). Long-polls get 60 s more
     * for the server's wait; an SSE feed's answer may then last as long as it likes.
     */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout =
          OptionChecks.positive(
              OptionChecks.once(this.requestTimeout, requestTimeout, "requestTimeout"),
              "requestTimeout");
      return this;
    }

    /** How long connecting may take (default 10 s). */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout =
          OptionChecks.positive(
              OptionChecks.once(this.connectTimeout, connectTimeout, "connectTimeout"),
              "connectTimeout");
      return this;
    }

    /**
     * How long calls that are safe to repeat keep retrying while the server answers {@code 503} or
     * {@code 507} (default 30 s; {@link Duration#ZERO}: never). See the class comment for which
     * calls those are; a plain append retries only through {@link AppendOptions#retryUnavailable}.
     *
     * <p>The pause before each retry is exponential (100 ms doubling to 5 s, 20% jitter) and never
     * shorter than the server's {@code Retry-After} (taken as at most 60 s). The {@code
     * Retry-After} also says when retrying is pointless: when the next pause would end past the
     * budget, the call throws the {@link ServiceUnavailableException} at once.
     */
    public Builder retryUnavailable(Duration maxWait) {
      this.retryUnavailable =
          OptionChecks.notNegative(
              OptionChecks.once(this.retryUnavailable, maxWait, "retryUnavailable"),
              "retryUnavailable");
      return this;
    }

    /**
     * Told of every retry this client's calls, consumers and producer sessions make (default:
     * nobody); see {@link RetryListener}.
     */
    public Builder retryListener(RetryListener listener) {
      this.retryListener = OptionChecks.once(this.retryListener, listener, "retryListener");
      return this;
    }

    /**
     * The token sent as {@code Authorization: Bearer ...} with every request this client, its
     * consumers and its producer sessions make, retries and redirects included (default: none, for
     * a node without access control or with an anonymous scope). A refused token surfaces as {@link
     * UnauthorizedException} ({@code 401}) or {@link ForbiddenException} ({@code 403}).
     *
     * @throws IllegalArgumentException if it has characters a header cannot carry
     */
    public Builder token(String token) {
      this.token = OptionChecks.once(this.token, new BearerToken(token), "token");
      return this;
    }

    /**
     * Trust the CA certificates in this PEM file for {@code https://} endpoints, instead of the
     * JDK's default CAs: for servers whose certificate a private CA signed (default: the JDK's).
     * The server's host name is still checked against its certificate. The file is read by {@link
     * #build}, which names it when it holds no certificate.
     */
    public Builder caCertificate(Path pemFile) {
      this.caCertificate = OptionChecks.once(this.caCertificate, pemFile, "caCertificate");
      return this;
    }

    /** A new client; it connects on its first request. */
    public PicoClient build() {
      return new PicoClient(this);
    }
  }
}
