package io.picomq.s3stream.core.blockcache;

/**
 * A read that may use only memory ({@link CachedObjectView#cachedOnly}) needed a page that is not
 * resident. An expected outcome of a fast read, not a failure of the store.
 */
public final class PageNotCachedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public PageNotCachedException(String key, long start, long end) {
    super("bytes [" + start + ", " + end + ") of " + key + " are not cached");
  }
}
