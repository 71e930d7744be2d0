package io.picomq.s3stream.objectstore;

import java.util.Objects;

/**
 * A failed object storage operation. The backend that raised it classifies it with a {@link Kind},
 * and only the backend can: it alone knows whether an HTTP 503 or an {@code EIO} is worth
 * repeating. Decorators such as {@link RetryingObjectStore} act on {@link #isRetryable()}.
 */
public class ObjectStoreException extends RuntimeException {

  /** Why an operation failed, as far as a caller can act on it. */
  public enum Kind {
    /** The key names no object. */
    NOT_FOUND,
    /** The request itself is wrong (a bad range, an unusable key); repeating it cannot help. */
    INVALID_ARGUMENT,
    /** The credentials are missing or lack permission. */
    ACCESS_DENIED,
    /**
     * The store was busy, slow or unreachable (5xx, throttling, timeouts, broken I/O); the same
     * request may succeed later.
     */
    TRANSIENT,
    /** The store was closed before or during the operation. */
    CLOSED,
    /** Any other failure that repeating will not fix. */
    PERMANENT
  }

  private static final long serialVersionUID = 1L;

  private final Kind kind;

  public ObjectStoreException(Kind kind, String message) {
    this(kind, message, null);
  }

  public ObjectStoreException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  public Kind kind() {
    return kind;
  }

  /** True when the same operation, repeated unchanged, may succeed. */
  public boolean isRetryable() {
    return kind == Kind.TRANSIENT;
  }
}
