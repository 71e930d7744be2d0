package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;

/**
 * A node's write-ahead log: records are appended, become durable in offset order, are trimmed once
 * the engine has uploaded them elsewhere, and are recovered by the node's next epoch after a crash.
 *
 * <p>Offsets are logical byte offsets of the WAL's address space: a record occupies its 24-byte
 * frame header plus its body, and offsets only grow, across epochs too. They need not be dense (an
 * {@link ObjectWal} starts each object at a 64 MiB boundary).
 *
 * <p>Lifecycle: {@link #start()}, then {@link #recover()} (optional), then {@link #reset()}, which
 * opens the log for {@link #append}; finally {@link #shutdownGracefully()} or {@link #close()}.
 * Each step is called once, in this order, by one caller.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li>A record's durable future completes only when it and every record before it are stored;
 *       futures complete in offset order, and {@link #confirmOffset()} never passes a record that
 *       is not stored.
 *   <li>After an abrupt stop, the next epoch's {@link #recover()} returns every acknowledged record
 *       above the last completed trim, in order, with no gap, and nothing a writer fenced by a
 *       newer epoch stored after that epoch started. It may also return records stored just before
 *       the stop whose acknowledgement was lost with it.
 *   <li>Once the WAL failed (storage), was fenced, or closed, every later append is refused with
 *       the same outcome.
 * </ul>
 */
public interface WriteAheadLog {

  /**
   * Claims the WAL for this instance's epoch: finds what earlier epochs left and fences them. Fails
   * with {@link WalFencedException} if a newer epoch already owns the WAL, and with {@link
   * IllegalStateException} if this epoch was used before.
   */
  CompletableFuture<Void> start();

  /**
   * The records earlier epochs appended and did not trim, in offset order, up to the first torn or
   * corrupt record or gap. Callable once, after {@link #start()} and before {@link #reset()}. The
   * receiver owns the returned buffers.
   */
  CompletableFuture<Recovery> recover();

  /**
   * Consumes everything earlier epochs left (the caller has uploaded what {@link #recover()}
   * returned): trims past it durably, deletes it, and opens the WAL for appends.
   */
  CompletableFuture<Void> reset();

  /**
   * Appends one record. Its offset is fixed now, in call order. Never blocks: when too many bytes
   * wait to be stored the answer is {@link WalAppendResult.OverCapacity} at once.
   *
   * @param body the record's bytes (normally one encoded record batch): its readable bytes at the
   *     time of the call. The WAL takes its own reference if it accepts the record and releases it
   *     when done; the caller keeps and releases its own, and must not change those bytes until the
   *     durable future completes.
   * @throws IllegalArgumentException if the record could never be accepted (larger than {@code
   *     maxUnflushedBytes}, or a trim marker batch, which the WAL reserves for itself)
   */
  WalAppendResult append(ByteBuf body);

  /**
   * Every record at an offset below this is durable; nothing at or above it has been acknowledged.
   * Never decreases.
   */
  long confirmOffset();

  /**
   * How many bytes of records this WAL holds before the trim must pass some of them: beyond that,
   * appends wait for a trim. A caller that trims only after uploading must upload well before it
   * fills. Unbounded (the default) for a WAL that keeps whatever it is given, like the object WAL.
   */
  default long capacityBytes() {
    return Long.MAX_VALUE;
  }

  /**
   * Discards every record at an offset {@code <= offset}: records the trim durably, then deletes
   * what storage held only for them.
   *
   * @param offset the offset of the last record to discard (inclusive, as stored in WAL object
   *     headers); must be below {@link #confirmOffset()}: a trim never passes confirm
   * @return completes once a restart can no longer recover the trimmed records
   * @throws IllegalArgumentException if {@code offset >= confirmOffset()}
   */
  CompletableFuture<Void> trim(long offset);

  /**
   * Tells this writer that a newer epoch took over: pending appends fail with {@link
   * WalFencedException} and later ones get {@link WalAppendResult.Fenced}.
   */
  void fence(String reason);

  /**
   * Stops taking appends, stores everything already appended, then closes. Completes exceptionally
   * if what was appended can no longer be stored (fenced, failed).
   */
  CompletableFuture<Void> shutdownGracefully();

  /**
   * Stops at once, like a crash as far as storage is concerned: pending appends fail with {@link
   * WalClosedException}; PUTs already sent may still land. Does not close the object store.
   */
  void close();
}
