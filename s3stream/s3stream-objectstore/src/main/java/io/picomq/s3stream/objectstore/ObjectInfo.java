package io.picomq.s3stream.objectstore;

import java.util.Objects;

/**
 * One entry of a {@link ObjectStore#list} answer.
 *
 * @param key the object's full key, exactly as it was passed to {@link ObjectStore#put}
 * @param sizeBytes the object's length in bytes
 */
public record ObjectInfo(String key, long sizeBytes) {
  public ObjectInfo {
    Objects.requireNonNull(key, "key");
    if (sizeBytes < 0) {
      throw new IllegalArgumentException("sizeBytes must be >= 0 for " + key + ": " + sizeBytes);
    }
  }
}
