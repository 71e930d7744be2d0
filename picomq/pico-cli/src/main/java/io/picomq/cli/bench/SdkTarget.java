package io.picomq.cli.bench;

import io.picomq.client.AppendOptions;
import io.picomq.client.BearerToken;
import io.picomq.client.Consumer;
import io.picomq.client.ConsumerOptions;
import io.picomq.client.CreateOptions;
import io.picomq.client.PicoClient;
import io.picomq.client.ProducerOptions;
import io.picomq.client.ProducerSession;
import io.picomq.client.Protocol;
import io.picomq.client.ReadRecord;
import io.picomq.client.ReadResult;
import io.picomq.client.Record;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link BenchTarget} over the {@code picomq-client} SDK: one {@link PicoClient} per connection
 * (each has its own connection pool; HTTP/2 multiplexes every request of one client over one
 * connection), readers on long-polling consumers, producer mode on {@link ProducerSession}s.
 *
 * <p>A server that answers {@code 503} is waited for as the SDK does (never sooner than its {@code
 * Retry-After}): producer sessions and reads always, plain appends for up to {@link #APPEND_RETRY}.
 * Each retry is counted for the report.
 */
final class SdkTarget implements BenchTarget {
  private final List<PicoClient> clients;
  private final PicoClient readerClient;
  private final LongAdder retries = new LongAdder();

  /** How long a plain append keeps resending while the server answers 503. */
  static final Duration APPEND_RETRY = Duration.ofSeconds(30);

  /**
   * @param connections how many client instances to spread the writers over
   */
  SdkTarget(
      URI endpoint,
      Protocol protocol,
      boolean http2,
      Optional<BearerToken> token,
      Optional<Path> caCertificate,
      int connections) {
    List<PicoClient> made = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      made.add(client(endpoint, protocol, http2, token, caCertificate, retries));
    }
    this.clients = List.copyOf(made);
    this.readerClient = client(endpoint, protocol, http2, token, caCertificate, retries);
  }

  private static PicoClient client(
      URI endpoint,
      Protocol protocol,
      boolean http2,
      Optional<BearerToken> token,
      Optional<Path> caCertificate,
      LongAdder retries) {
    PicoClient.Builder builder =
        PicoClient.builder()
            .endpoint(endpoint)
            .protocol(protocol)
            .http2(http2)
            .requestTimeout(Duration.ofSeconds(60))
            .retryListener((failure, pause) -> retries.increment());
    token.ifPresent(t -> builder.token(t.value()));
    caCertificate.ifPresent(builder::caCertificate);
    return builder.build();
  }

  @Override
  public long retries() {
    return retries.sum();
  }

  @Override
  public void create(String stream) {
    clients.get(0).create(stream, CreateOptions.defaults());
  }

  @Override
  public void append(int connection, String stream, List<byte[]> bodies) {
    List<Record> records = new ArrayList<>(bodies.size());
    for (byte[] body : bodies) {
      records.add(Record.of(body));
    }
    // A resend after a 503 from an append that still completed would write it twice; the readers
    // would then receive more records than were acknowledged, and the report says so.
    clients
        .get(connection)
        .append(stream, records, AppendOptions.defaults().retryUnavailable(APPEND_RETRY));
  }

  @Override
  public Producer producer(String stream) {
    ProducerSession session = clients.get(0).producer(stream, ProducerOptions.defaults());
    return new Producer() {
      @Override
      public CompletableFuture<?> send(byte[] body) {
        return session.send(Record.of(body));
      }

      @Override
      public void close() {
        session.close();
      }
    };
  }

  @Override
  public Tail tail(String stream) {
    // A client of its own, so that under HTTP/2 the reader does not share the writers' connection.
    Consumer consumer = readerClient.consumer(stream, ConsumerOptions.fromSeq(0));
    return new Tail() {
      @Override
      public List<byte[]> poll(Duration timeout) {
        ReadResult result = consumer.poll(timeout);
        List<byte[]> bodies = new ArrayList<>(result.records().size());
        for (ReadRecord record : result.records()) {
          bodies.add(record.body());
        }
        return bodies;
      }

      @Override
      public void close() {
        consumer.close();
      }
    };
  }

  @Override
  public void delete(String stream) {
    clients.get(0).delete(stream);
  }

  @Override
  public void close() {
    for (PicoClient client : clients) {
      client.close();
    }
    readerClient.close();
  }
}
