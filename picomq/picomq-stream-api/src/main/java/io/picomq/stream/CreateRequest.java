package io.picomq.stream;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Create a stream (or a fork), idempotently.
 *
 * <p>The configuration compared on a repeated create is: content type (by media type, see {@link
 * StreamService#sameMediaType}), expiry, the closed flag and, for a fork, the fork point (source,
 * seq when given, partial bytes). Initial records are not compared: a repeated create with the same
 * configuration writes nothing.
 *
 * @param contentType the stream's content type; empty means {@code application/octet-stream}, or
 *     the source's content type for a fork (a fork may not change it: {@link
 *     CreateOutcome.Conflict})
 * @param expiry empty means {@link Expiry#NEVER}, or the source's configured expiry for a fork
 * @param closed create the stream already sealed (after writing {@code records})
 * @param records the stream's first records (after a fork's inherited ones); may be empty
 * @param fork present to create a fork of another stream
 */
public record CreateRequest(
    Optional<String> contentType,
    Optional<Expiry> expiry,
    boolean closed,
    List<NewRecord> records,
    Optional<ForkPoint> fork) {

  public CreateRequest {
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(expiry, "expiry");
    records = List.copyOf(records);
    Objects.requireNonNull(fork, "fork");
  }

  /** A plain, empty, open stream of this content type that never expires. */
  public static CreateRequest of(String contentType) {
    return new CreateRequest(
        Optional.of(contentType), Optional.empty(), false, List.of(), Optional.empty());
  }
}
