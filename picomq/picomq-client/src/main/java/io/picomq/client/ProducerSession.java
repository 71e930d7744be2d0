package io.picomq.client;

import java.util.concurrent.CompletableFuture;

/**
 * An idempotent producer on one stream: hands records over one at a time, batches them (by linger
 * time, record count and bytes), keeps several batches in flight, and completes each record's
 * future when it is durable, strictly in the order the records were sent.
 *
 * <p>Every batch is an append stamped with the session's producer id, epoch and a producer seq one
 * higher than the previous batch's. A batch that fails on the way (I/O error, timeout, 5xx) is sent
 * again after an exponential backoff with jitter, with the same stamp and the same bytes, so the
 * server either writes it once or answers that it already has: a retry never duplicates a record. A
 * batch the server rejects for good (the stream is sealed or deleted, the producer was fenced by a
 * newer epoch) fails its records' futures and every later one: the session is then broken and
 * {@link #send} throws.
 *
 * <p>{@link #send} blocks while the bytes in flight would exceed {@link
 * ProducerOptions#maxInFlightBytes()}, up to {@link ProducerOptions#maxBlock()}, then throws {@link
 * ProducerBufferFullException}. Thread-safe: any thread may send.
 */
public interface ProducerSession extends AutoCloseable {

  /**
   * Queues a record for appending.
   *
   * @return completes with the record's own seq ({@code startSeq}, and {@code nextSeq = startSeq +
   *     1}) once it is durable, or exceptionally with a {@link PicoException}
   * @throws ProducerBufferFullException if there was no room within {@code maxBlock}
   * @throws IllegalStateException if the session is closed or broken
   */
  CompletableFuture<AppendResult> send(Record record);

  /** Sends what is queued now and waits until every record sent so far is durable or failed. */
  void flush();

  /** The producer id this session stamps its appends with. */
  ProducerId producerId();

  /** The producer epoch this session stamps its appends with. */
  long epoch();

  /** Flushes, then releases the session. Records sent later are refused. */
  @Override
  void close();
}
