package io.picomq.cli.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The server a run drives: the handful of operations {@code pico bench} needs, so the measurement
 * core runs the same against the SDK ({@link SdkTarget}) and against an in-memory fake in tests.
 * Implementations are thread-safe; blocking calls are made from virtual threads.
 */
interface BenchTarget extends AutoCloseable {

  /** Creates an empty stream of opaque bytes. */
  void create(String stream);

  /**
   * Appends record bodies in one request and returns once they are durable.
   *
   * @param connection which client instance (connection pool) to use, {@code 0..connections-1}
   */
  void append(int connection, String stream, List<byte[]> bodies);

  /** A producer session on {@code stream}: records go one at a time, batched by the SDK. */
  Producer producer(String stream);

  /** A reader of {@code stream} from its first record, following new appends as they land. */
  Tail tail(String stream);

  /**
   * How many times the target has retried a request by itself so far (after a {@code 503} with
   * {@code Retry-After}, or a producer session's resends); thread-safe.
   */
  default long retries() {
    return 0;
  }

  /** Deletes the stream. */
  void delete(String stream);

  @Override
  void close();

  /** Sends records one at a time; thread-safe. */
  interface Producer extends AutoCloseable {
    /** Completes when the record is durable. */
    CompletableFuture<?> send(byte[] body);

    @Override
    void close();
  }

  /** Owned by one reader thread. */
  interface Tail extends AutoCloseable {
    /**
     * The bodies received next, in order; empty when nothing arrived within {@code timeout}. Under
     * Durable Streams a body may be a chunk of several records (see {@link RecordFramer}).
     */
    List<byte[]> poll(Duration timeout);

    @Override
    void close();
  }
}
