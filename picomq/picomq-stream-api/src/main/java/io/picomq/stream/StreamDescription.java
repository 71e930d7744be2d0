package io.picomq.stream;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the registry knows about a live stream, as of one moment.
 *
 * @param name the stream's name
 * @param streamId identifies this incarnation of the name: a stream deleted and created again under
 *     the same name gets a different id (caches key on it, e.g. an ETag)
 * @param contentType as given at creation (or inherited from a fork's source)
 * @param expiry the configured expiry
 * @param expiresAt when the stream expires if nothing else happens: the fixed instant of {@link
 *     Expiry.At}, last activity plus the window for {@link Expiry.Ttl}, empty for {@link
 *     Expiry.Never}
 * @param startSeq the first readable seq (0 until trimmed)
 * @param nextSeq the tail: the seq the next appended record gets
 * @param closed sealed: no record will ever be appended again
 */
public record StreamDescription(
    String name,
    long streamId,
    String contentType,
    Expiry expiry,
    Optional<Instant> expiresAt,
    long startSeq,
    long nextSeq,
    boolean closed) {

  public StreamDescription {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(expiry, "expiry");
    Objects.requireNonNull(expiresAt, "expiresAt");
    if (startSeq < 0 || nextSeq < startSeq) {
      throw new IllegalArgumentException(
          "need 0 <= startSeq <= nextSeq: startSeq=" + startSeq + " nextSeq=" + nextSeq);
    }
  }
}
