package io.picomq.client;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link PicoClient#create} creates a stream.
 *
 * @param contentType the stream's content type; {@code application/octet-stream} by default
 * @param ttl a sliding time to live (whole seconds on the wire), if any
 * @param expiresAt an absolute expiry, if any
 * @param closed whether to create the stream already sealed
 */
public record CreateOptions(
    String contentType, Optional<Duration> ttl, Optional<Instant> expiresAt, boolean closed) {

  /** The content type of a stream created without one. */
  public static final String DEFAULT_CONTENT_TYPE = "application/octet-stream";

  public CreateOptions {
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(expiresAt, "expiresAt");
    ttl.ifPresent(
        t -> {
          if (t.isNegative()) {
            throw new IllegalArgumentException("ttl must not be negative: " + t);
          }
        });
  }

  /** An open {@code application/octet-stream} stream without expiry. */
  public static CreateOptions defaults() {
    return new CreateOptions(DEFAULT_CONTENT_TYPE, Optional.empty(), Optional.empty(), false);
  }

  /** A builder starting from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds {@link CreateOptions}; each setting may be made once, so a setting made twice by mistake
   * fails loudly instead of the last one silently winning.
   */
  public static final class Builder {
    private String contentType;
    private Duration ttl;
    private Instant expiresAt;
    private Boolean closed;

    private Builder() {}

    /** The stream's content type. */
    public Builder contentType(String contentType) {
      this.contentType = OptionChecks.once(this.contentType, contentType, "contentType");
      return this;
    }

    /** A sliding time to live, in whole seconds. */
    public Builder ttl(Duration ttl) {
      this.ttl = OptionChecks.once(this.ttl, ttl, "ttl");
      return this;
    }

    /** An absolute expiry. */
    public Builder expiresAt(Instant expiresAt) {
      this.expiresAt = OptionChecks.once(this.expiresAt, expiresAt, "expiresAt");
      return this;
    }

    /** Whether to create the stream sealed. */
    public Builder closed(boolean closed) {
      this.closed = OptionChecks.once(this.closed, closed, "closed");
      return this;
    }

    /** The options; each setting not made keeps its default. */
    public CreateOptions build() {
      return new CreateOptions(
          contentType == null ? DEFAULT_CONTENT_TYPE : contentType,
          Optional.ofNullable(ttl),
          Optional.ofNullable(expiresAt),
          closed != null && closed);
    }
  }
}
