package io.picomq.s3stream.core.compaction;

import io.picomq.s3stream.object.ObjectNamespace;
import java.time.Duration;
import java.util.Objects;

/**
 * How the compactors write and commit, apart from the planning limits.
 *
 * @param namespace where data objects live in the bucket
 * @param blockSizeThresholdBytes payload bytes after which a new object's data block is cut (as for
 *     WAL uploads)
 * @param preparedObjectTtl how long prepared object ids stay valid; a compaction that dies before
 *     its commit leaves objects that are collected after this
 * @param maxSourceObjects at most this many stream-set objects (the oldest) are considered per
 *     compaction, and at most this many stream objects per stream merge pass
 */
public record CompactionSettings(
    ObjectNamespace namespace,
    int blockSizeThresholdBytes,
    Duration preparedObjectTtl,
    int maxSourceObjects) {

  /** The upstream's data block size threshold. */
  public static final int DEFAULT_BLOCK_SIZE_THRESHOLD_BYTES = 1024 * 1024;

  public CompactionSettings {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(preparedObjectTtl, "preparedObjectTtl");
    if (blockSizeThresholdBytes <= 0) {
      throw new IllegalArgumentException(
          "blockSizeThresholdBytes must be > 0: " + blockSizeThresholdBytes);
    }
    if (preparedObjectTtl.isNegative() || preparedObjectTtl.isZero()) {
      throw new IllegalArgumentException("preparedObjectTtl must be > 0: " + preparedObjectTtl);
    }
    if (maxSourceObjects < 1) {
      throw new IllegalArgumentException("maxSourceObjects must be >= 1: " + maxSourceObjects);
    }
  }

  /** The default namespace, 1 MiB blocks, ids valid for 30 minutes, 500 source objects. */
  public static CompactionSettings defaults() {
    return new CompactionSettings(
        ObjectNamespace.DEFAULT, DEFAULT_BLOCK_SIZE_THRESHOLD_BYTES, Duration.ofMinutes(30), 500);
  }
}
