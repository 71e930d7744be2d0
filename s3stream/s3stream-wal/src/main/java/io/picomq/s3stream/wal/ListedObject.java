package io.picomq.s3stream.wal;

import io.picomq.s3stream.walobject.WalObjectKey;
import java.util.Objects;

/**
 * A WAL object found by listing the node prefix: its parsed key and its size.
 *
 * @param key the parsed key
 * @param sizeBytes the object's size
 */
record ListedObject(WalObjectKey key, long sizeBytes) {

  ListedObject {
    Objects.requireNonNull(key, "key");
  }

  long epoch() {
    return key.epoch();
  }

  long startOffset() {
    return key.startOffset();
  }

  /** Where the object's range ends in WAL offset space (exclusive). */
  long endOffset() {
    return key.endOffset(sizeBytes);
  }

  @Override
  public String toString() {
    return key.key() + " (" + sizeBytes + " bytes)";
  }
}
