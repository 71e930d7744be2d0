package io.picomq.s3stream.walobject;

import java.util.Objects;

/**
 * A WAL object's key, parsed back into what recovery sorts and checks by: {@code
 * {nodePrefix}{epoch}/wal/{start}} (v0) or {@code {nodePrefix}{epoch}/wal/{start}-{end}} (v1).
 */
public sealed interface WalObjectKey {

  /** The full key. */
  String key();

  /** The node epoch the object was written under. */
  long epoch();

  /** The WAL offset of the object's first record. */
  long startOffset();

  /**
   * The object's end in WAL offset space. A v1 key states it; for a v0 key it follows from the
   * object's size: {@code startOffset + objectSizeBytes - 40}.
   */
  long endOffset(long objectSizeBytes);

  /**
   * A v0 key, which carries no end offset.
   *
   * @param key the full key
   * @param epoch the writer's node epoch
   * @param startOffset the WAL offset of the first record
   */
  record V0(String key, long epoch, long startOffset) implements WalObjectKey {
    public V0 {
      Objects.requireNonNull(key, "key");
    }

    @Override
    public long endOffset(long objectSizeBytes) {
      return startOffset + objectSizeBytes - WalObjectHeader.V0.SIZE;
    }
  }

  /**
   * A v1 key.
   *
   * @param key the full key
   * @param epoch the writer's node epoch
   * @param startOffset the WAL offset of the first record
   * @param endOffset where the next object of the same writer starts
   */
  record V1(String key, long epoch, long startOffset, long endOffset) implements WalObjectKey {
    public V1 {
      Objects.requireNonNull(key, "key");
    }

    @Override
    public long endOffset(long objectSizeBytes) {
      return endOffset;
    }
  }
}
