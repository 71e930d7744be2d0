package io.picomq.stream;

import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The node's streams, by name: what both HTTP frontends (Pico protocol, Durable Streams) call.
 *
 * <h2>Threading</h2>
 *
 * Every method returns at once with a future; none blocks the caller, so a frontend may call from
 * an event loop or a virtual thread. Every future completes, with an outcome or, for a bug or
 * broken I/O only, exceptionally. Expected results (absent stream, conflicts, producer fencing) are
 * outcomes, never exceptions. Futures may complete on a service thread: callers must not block in
 * their callbacks.
 *
 * <h2>Durability and visibility</h2>
 *
 * An append's future completes once its records are durable; from then on every read sees them
 * (read-your-writes), and a record is readable exactly when it is durable. Appends to one stream
 * are applied in the order the service accepts them; concurrent appends from different callers are
 * serialized, and one producer's calls are validated and applied one at a time.
 *
 * <h2>Lifetime</h2>
 *
 * A stream lives until deleted or expired ({@link Expiry}). Deleting (or expiring) a stream that
 * live forks still read from makes it <em>soft-deleted</em>: reads, appends, heads and deletes
 * answer {@code Gone}, the name cannot be created again ({@link CreateOutcome.NameRetained}) and
 * the stream cannot be forked; its records stay readable through the forks. When the last fork
 * referencing it is fully deleted, it is deleted for good (and so on up a chain of forks).
 */
public interface StreamService {

  /** Creates a stream or a fork, idempotently (see {@link CreateRequest}). */
  CompletableFuture<CreateOutcome> create(String name, CreateRequest request);

  /** Appends records, closes, or both (see {@link AppendRequest}). Counts as activity. */
  CompletableFuture<AppendVerdict> append(String name, AppendRequest request);

  /** Reads records (see {@link ReadWindow}). Counts as activity, even when nothing is read. */
  CompletableFuture<ReadOutcome> read(String name, ReadWindow request);

  /**
   * A signal for live readers: completes once the stream's tail is past {@code seq} (a record at
   * {@code seq} is readable), the stream is closed, or it no longer exists (deleted, expired,
   * soft-deleted). It completes at once if that is already so, including for a name that does not
   * exist. It carries no data: the caller reads next, and learns there what happened.
   *
   * <p>The caller owns the future: to stop waiting (a timeout, a client gone) it cancels it, and
   * the service then forgets the waiter, so abandoned waits leak nothing. Waiting costs no thread.
   */
  CompletableFuture<Void> awaitBeyond(String name, long seq);

  /** The stream's metadata. Not activity: it does not extend a TTL. */
  CompletableFuture<HeadOutcome> head(String name);

  /**
   * Deletes a stream (soft-deletes it while forks read from it, see the class comment). Waiters
   * ({@link #awaitBeyond}) on it complete.
   */
  CompletableFuture<DeleteOutcome> delete(String name);

  /** Drops records below {@code beforeSeq}: reads below the new start answer {@code Trimmed}. */
  CompletableFuture<TrimOutcome> trim(String name, long beforeSeq);

  /** A page of live streams. Not activity. */
  CompletableFuture<StreamPage> list(ListQuery request);

  /**
   * Whether two content types name the same media type: compared without parameters ({@code ;
   * charset=...}), ignoring case and surrounding spaces. Every implementation compares content
   * types this way (repeated creates, forks, appends).
   */
  static boolean sameMediaType(String a, String b) {
    return mediaType(a).equals(mediaType(b));
  }

  /** The media type of a content type: lower case, without parameters. */
  static String mediaType(String contentType) {
    int semicolon = contentType.indexOf(';');
    String type = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
    return type.strip().toLowerCase(Locale.ROOT);
  }
}
