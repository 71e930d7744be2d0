package io.picomq.s3stream.objectstore;

/** The key of a {@link ObjectStore#get} names no object. Never retryable. */
public final class ObjectNotFoundException extends ObjectStoreException {

  private static final long serialVersionUID = 1L;

  private final String key;

  public ObjectNotFoundException(String key) {
    this(key, null);
  }

  public ObjectNotFoundException(String key, Throwable cause) {
    super(Kind.NOT_FOUND, "no object at key '" + key + "'", cause);
    this.key = key;
  }

  /** The key that was looked up. */
  public String key() {
    return key;
  }
}
