package io.picomq.client;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a stream looks like: the answer of {@link PicoClient#create}, {@link PicoClient#head} and
 * {@link PicoClient#list}.
 *
 * @param name the stream's canonical name, with its leading {@code /} (e.g. {@code /orders/42})
 * @param contentType the stream's content type
 * @param startSeq the first readable seq (above 0 once trimmed); 0 when the protocol does not say
 * @param nextSeq the seq the next appended record gets
 * @param closed whether the stream is sealed
 * @param ttl the sliding time to live, if any
 * @param expiresAt the absolute expiry, if any
 */
public record StreamInfo(
    String name,
    String contentType,
    long startSeq,
    long nextSeq,
    boolean closed,
    Optional<Duration> ttl,
    Optional<Instant> expiresAt) {

  public StreamInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }
}
