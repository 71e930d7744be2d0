package io.picomq.client;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * A client of one PicoMQ listener, speaking either the Pico protocol or Durable Streams over
 * java.net.http (HTTP/1.1, or HTTP/2 via the h2c upgrade). Thread-safe; share one per endpoint. The
 * blocking methods here each make one request (following up to 5 redirects to a stream's owner);
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
 */
public final class PicoClient implements AutoCloseable {

  /** The endpoint a client uses when none is given. */
  public static final URI DEFAULT_ENDPOINT = URI.create("http://127.0.0.1:4437");

  private final Settings0 settings;

  private PicoClient(Settings0 settings) {
    this.settings = settings;
  }

  /** A builder with every setting at its default. */
  public static Builder builder() {
    return new Builder();
  }

  /** The endpoint this client talks to. */
  public URI endpoint() {
    return settings.endpoint();
  }

  /** The protocol this client speaks. */
  public Protocol protocol() {
    return settings.protocol();
  }

  /**
   * Creates a stream, or confirms it exists with the same content type (idempotent).
   *
   * @throws ConflictException if it exists with another content type (or other settings)
   */
  public StreamInfo create(String stream, CreateOptions options) {
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * A stream's current state.
   *
   * @throws StreamNotFoundException if it does not exist
   */
  public StreamInfo head(String stream) {
    throw new UnsupportedOperationException("not yet");
  }

  /** Appends {@code records} as one batch: consecutive seqs, durable all together. */
  public AppendResult append(String stream, List<Record> records) {
    return append(stream, records, AppendOptions.defaults());
  }

  /**
   * Appends {@code records} as one batch with conditions: consecutive seqs, durable all together.
   * An empty list with {@link AppendOptions#close} only seals the stream.
   *
   * @throws StreamNotFoundException if the stream does not exist
   * @throws StreamClosedException if it is sealed
   * @throws SeqMismatchException if {@link AppendOptions#matchSeq} does not hold
   * @throws ProducerConflictException if the producer seq is not the one expected
   * @throws StaleProducerEpochException if the producer was fenced by a newer epoch
   */
  public AppendResult append(String stream, List<Record> records, AppendOptions options) {
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * Reads records once (one request).
   *
   * @throws StreamNotFoundException if the stream does not exist
   */
  public ReadResult read(String stream, ReadRequest request) {
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * One page of streams, in name order.
   *
   * @throws UnsupportedByProtocolException under Durable Streams
   */
  public ListPage list(ListRequest request) {
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * Drops the records below {@code beforeSeq}.
   *
   * @throws UnsupportedByProtocolException under Durable Streams
   */
  public void trim(String stream, long beforeSeq) {
    throw new UnsupportedOperationException("not yet");
  }

  /** Seals a stream: it takes no more appends. Sealing a sealed stream succeeds. */
  public AppendResult close(String stream) {
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * Deletes a stream.
   *
   * @throws StreamNotFoundException if it does not exist
   */
  public void delete(String stream) {
    throw new UnsupportedOperationException("not yet");
  }

  /** A consumer that follows {@code stream}; see {@link Consumer}. */
  public Consumer consumer(String stream, ConsumerOptions options) {
    throw new UnsupportedOperationException("not yet");
  }

  /** An idempotent producer session on {@code stream}; see {@link ProducerSession}. */
  public ProducerSession producer(String stream, ProducerOptions options) {
    throw new UnsupportedOperationException("not yet");
  }

  /** A client of the admin listener at {@code adminEndpoint}, sharing this client's settings. */
  public AdminClient admin(URI adminEndpoint) {
    return AdminClient.create(adminEndpoint);
  }

  /** Releases the HTTP client. Consumers and producer sessions made by it stop working. */
  @Override
  public void close() {}

  private record Settings0(
      URI endpoint, Protocol protocol, boolean http2, Duration requestTimeout) {}

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

    private Builder() {}

    /** The listener's base URI (default {@code http://127.0.0.1:4437}). */
    public Builder endpoint(URI endpoint) {
      this.endpoint = Settings.once(this.endpoint, endpoint, "endpoint");
      return this;
    }

    /** The protocol the listener speaks (default {@link Protocol#PICO}). */
    public Builder protocol(Protocol protocol) {
      this.protocol = Settings.once(this.protocol, protocol, "protocol");
      return this;
    }

    /**
     * Whether to speak HTTP/2 (h2c, by upgrading the first request) rather than HTTP/1.1 (default
     * false). Over HTTP/2 many requests share one connection.
     */
    public Builder http2(boolean http2) {
      this.http2 = Settings.once(this.http2, http2, "http2");
      return this;
    }

    /**
     * How long a request may take (default 30 s). Long-polls and SSE streams allow for the server's
     * own wait on top.
     */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout =
          Settings.positive(
              Settings.once(this.requestTimeout, requestTimeout, "requestTimeout"),
              "requestTimeout");
      return this;
    }

    /** How long connecting may take (default 10 s). */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout =
          Settings.positive(
              Settings.once(this.connectTimeout, connectTimeout, "connectTimeout"),
              "connectTimeout");
      return this;
    }

    public PicoClient build() {
      return new PicoClient(
          new Settings0(
              endpoint == null ? DEFAULT_ENDPOINT : endpoint,
              protocol == null ? Protocol.PICO : protocol,
              http2 != null && http2,
              requestTimeout == null ? Duration.ofSeconds(30) : requestTimeout));
    }
  }
}
