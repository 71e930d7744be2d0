package io.picomq.s3stream.api;

import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The engine's settings. Build one with {@link #builder()}; derive a variant with {@link
 * #newBuilder()}. Every size is in bytes and every duration in milliseconds, as the names say.
 *
 * @param nodeId this node's stable id
 * @param nodeEpoch this process's node epoch (a new, higher one per process start); it fences the
 *     WAL and the commits of every earlier process of this node
 * @param clusterId the cluster's name; part of the WAL's key prefix
 * @param namespace the namespace segment of data object keys (and of the WAL prefix)
 * @param walCacheSizeBytes the log cache: appended records held in memory until uploaded; appends
 *     wait for room when it is full
 * @param blockCacheSizeBytes the block cache: pages of committed objects kept for readers (at least
 *     64 KiB)
 * @param walUploadThresholdBytes the log cache seals a block for upload at this size; clamped to
 *     {@link #effectiveUploadThresholdBytes()}
 * @param walUploadIntervalMillis also seal a non-empty block this long after it was opened; 0 turns
 *     the interval off
 * @param streamSplitSizeBytes a stream with at least this many bytes in an uploaded block gets
 *     stream objects of its own; smaller ones share one stream-set object
 * @param objectBlockSizeBytes data objects cut a data block after this many payload bytes
 * @param appendWaitMillis how long an append waits for room in a full log cache before it ends
 *     {@link AppendOutcome.OverCapacity}
 * @param maxWaitingAppends how many appends may wait for room at once; more end {@link
 *     AppendOutcome.OverCapacity} at once
 * @param compactionIntervalMillis how often the engine compacts this node's stream-set objects and
 *     merges the stream objects of its open streams; 0 turns compaction off
 * @param compactionCacheSizeBytes block bytes one compaction round reads into memory (and the
 *     largest stream-set object it builds)
 * @param compactionMaxObjectSizeBytes the largest stream object a merge of stream objects builds
 */
public record EngineConfig(
    int nodeId,
    long nodeEpoch,
    String clusterId,
    String namespace,
    long walCacheSizeBytes,
    long blockCacheSizeBytes,
    long walUploadThresholdBytes,
    long walUploadIntervalMillis,
    long streamSplitSizeBytes,
    int objectBlockSizeBytes,
    long appendWaitMillis,
    int maxWaitingAppends,
    long compactionIntervalMillis,
    long compactionCacheSizeBytes,
    long compactionMaxObjectSizeBytes) {

  public static final long MIB = 1024L * 1024;
  public static final String DEFAULT_CLUSTER_ID = "picomq";
  public static final String DEFAULT_NAMESPACE = "DEFAULT";
  public static final long DEFAULT_WAL_CACHE_SIZE_BYTES = 200 * MIB;
  public static final long DEFAULT_BLOCK_CACHE_SIZE_BYTES = 100 * MIB;
  public static final long DEFAULT_WAL_UPLOAD_THRESHOLD_BYTES = 100 * MIB;
  public static final long DEFAULT_WAL_UPLOAD_INTERVAL_MILLIS = 0;
  public static final long DEFAULT_STREAM_SPLIT_SIZE_BYTES = 8 * MIB;
  public static final int DEFAULT_OBJECT_BLOCK_SIZE_BYTES = (int) MIB;
  public static final long DEFAULT_APPEND_WAIT_MILLIS = 5_000;
  public static final int DEFAULT_MAX_WAITING_APPENDS = 4_096;
  public static final long DEFAULT_COMPACTION_INTERVAL_MILLIS = 60_000;
  public static final long DEFAULT_COMPACTION_CACHE_SIZE_BYTES = 64 * MIB;
  public static final long DEFAULT_COMPACTION_MAX_OBJECT_SIZE_BYTES = 1024 * MIB;

  /** The upload threshold never exceeds this share of the log cache: two blocks fit beside it. */
  private static final double MAX_UPLOAD_SHARE = 2.0 / 5.0;

  public EngineConfig {
    Objects.requireNonNull(clusterId, "clusterId");
    Objects.requireNonNull(namespace, "namespace");
    require(nodeId >= 0, "nodeId must be >= 0: " + nodeId);
    require(nodeEpoch >= 0, "nodeEpoch must be >= 0: " + nodeEpoch);
    require(!clusterId.isEmpty() && clusterId.indexOf('/') < 0, "bad clusterId: " + clusterId);
    require(!namespace.isEmpty() && namespace.indexOf('/') < 0, "bad namespace: " + namespace);
    require(walCacheSizeBytes >= MIB, "walCacheSizeBytes must be >= 1 MiB: " + walCacheSizeBytes);
    require(
        blockCacheSizeBytes >= 64 * 1024,
        "blockCacheSizeBytes must be >= 64 KiB: " + blockCacheSizeBytes);
    require(walUploadThresholdBytes > 0, "walUploadThresholdBytes must be > 0");
    require(walUploadIntervalMillis >= 0, "walUploadIntervalMillis must be >= 0 (0 = off)");
    require(streamSplitSizeBytes > 0, "streamSplitSizeBytes must be > 0: " + streamSplitSizeBytes);
    require(objectBlockSizeBytes > 0, "objectBlockSizeBytes must be > 0: " + objectBlockSizeBytes);
    require(appendWaitMillis >= 0, "appendWaitMillis must be >= 0: " + appendWaitMillis);
    require(maxWaitingAppends >= 0, "maxWaitingAppends must be >= 0: " + maxWaitingAppends);
    require(compactionIntervalMillis >= 0, "compactionIntervalMillis must be >= 0 (0 = off)");
    require(
        compactionCacheSizeBytes >= MIB,
        "compactionCacheSizeBytes must be >= 1 MiB: " + compactionCacheSizeBytes);
    require(
        compactionMaxObjectSizeBytes >= MIB,
        "compactionMaxObjectSizeBytes must be >= 1 MiB: " + compactionMaxObjectSizeBytes);
  }

  /**
   * The size at which the log cache seals a block: {@link #walUploadThresholdBytes()}, but at most
   * 2/5 of {@link #walCacheSizeBytes()}, so a block can fill while an earlier one uploads without
   * appends waiting for room.
   */
  public long effectiveUploadThresholdBytes() {
    return Math.min(walUploadThresholdBytes, (long) (walCacheSizeBytes * MAX_UPLOAD_SHARE));
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these settings; each may be overridden once. */
  public Builder newBuilder() {
    Builder b = new Builder();
    b.nodeId = nodeId;
    b.nodeEpoch = nodeEpoch;
    b.clusterId = clusterId;
    b.namespace = namespace;
    b.walCacheSizeBytes = walCacheSizeBytes;
    b.blockCacheSizeBytes = blockCacheSizeBytes;
    b.walUploadThresholdBytes = walUploadThresholdBytes;
    b.walUploadIntervalMillis = walUploadIntervalMillis;
    b.streamSplitSizeBytes = streamSplitSizeBytes;
    b.objectBlockSizeBytes = objectBlockSizeBytes;
    b.appendWaitMillis = appendWaitMillis;
    b.maxWaitingAppends = maxWaitingAppends;
    b.compactionIntervalMillis = compactionIntervalMillis;
    b.compactionCacheSizeBytes = compactionCacheSizeBytes;
    b.compactionMaxObjectSizeBytes = compactionMaxObjectSizeBytes;
    return b;
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }

  /**
   * Collects settings; {@link #build()} checks them. Setting the same thing twice is an error (it
   * is almost always a bug in the caller's wiring). {@code nodeId} and {@code nodeEpoch} have no
   * default.
   */
  public static final class Builder {
    private final Set<String> set = new HashSet<>();
    private int nodeId = -1;
    private long nodeEpoch = -1;
    private String clusterId = DEFAULT_CLUSTER_ID;
    private String namespace = DEFAULT_NAMESPACE;
    private long walCacheSizeBytes = DEFAULT_WAL_CACHE_SIZE_BYTES;
    private long blockCacheSizeBytes = DEFAULT_BLOCK_CACHE_SIZE_BYTES;
    private long walUploadThresholdBytes = DEFAULT_WAL_UPLOAD_THRESHOLD_BYTES;
    private long walUploadIntervalMillis = DEFAULT_WAL_UPLOAD_INTERVAL_MILLIS;
    private long streamSplitSizeBytes = DEFAULT_STREAM_SPLIT_SIZE_BYTES;
    private int objectBlockSizeBytes = DEFAULT_OBJECT_BLOCK_SIZE_BYTES;
    private long appendWaitMillis = DEFAULT_APPEND_WAIT_MILLIS;
    private int maxWaitingAppends = DEFAULT_MAX_WAITING_APPENDS;
    private long compactionIntervalMillis = DEFAULT_COMPACTION_INTERVAL_MILLIS;
    private long compactionCacheSizeBytes = DEFAULT_COMPACTION_CACHE_SIZE_BYTES;
    private long compactionMaxObjectSizeBytes = DEFAULT_COMPACTION_MAX_OBJECT_SIZE_BYTES;

    private Builder() {}

    public Builder nodeId(int value) {
      once("nodeId");
      nodeId = value;
      return this;
    }

    public Builder nodeEpoch(long value) {
      once("nodeEpoch");
      nodeEpoch = value;
      return this;
    }

    public Builder clusterId(String value) {
      once("clusterId");
      clusterId = Objects.requireNonNull(value, "clusterId");
      return this;
    }

    public Builder namespace(String value) {
      once("namespace");
      namespace = Objects.requireNonNull(value, "namespace");
      return this;
    }

    public Builder walCacheSizeBytes(long value) {
      once("walCacheSizeBytes");
      walCacheSizeBytes = value;
      return this;
    }

    public Builder blockCacheSizeBytes(long value) {
      once("blockCacheSizeBytes");
      blockCacheSizeBytes = value;
      return this;
    }

    public Builder walUploadThresholdBytes(long value) {
      once("walUploadThresholdBytes");
      walUploadThresholdBytes = value;
      return this;
    }

    public Builder walUploadIntervalMillis(long value) {
      once("walUploadIntervalMillis");
      walUploadIntervalMillis = value;
      return this;
    }

    public Builder streamSplitSizeBytes(long value) {
      once("streamSplitSizeBytes");
      streamSplitSizeBytes = value;
      return this;
    }

    public Builder objectBlockSizeBytes(int value) {
      once("objectBlockSizeBytes");
      objectBlockSizeBytes = value;
      return this;
    }

    public Builder appendWaitMillis(long value) {
      once("appendWaitMillis");
      appendWaitMillis = value;
      return this;
    }

    public Builder maxWaitingAppends(int value) {
      once("maxWaitingAppends");
      maxWaitingAppends = value;
      return this;
    }

    public Builder compactionIntervalMillis(long value) {
      once("compactionIntervalMillis");
      compactionIntervalMillis = value;
      return this;
    }

    public Builder compactionCacheSizeBytes(long value) {
      once("compactionCacheSizeBytes");
      compactionCacheSizeBytes = value;
      return this;
    }

    public Builder compactionMaxObjectSizeBytes(long value) {
      once("compactionMaxObjectSizeBytes");
      compactionMaxObjectSizeBytes = value;
      return this;
    }

    /**
     * @throws IllegalStateException if {@code nodeId} or {@code nodeEpoch} was never set
     * @throws IllegalArgumentException if a setting is out of range
     */
    public EngineConfig build() {
      if (nodeId < 0 && !set.contains("nodeId")) {
        throw new IllegalStateException("nodeId is required");
      }
      if (nodeEpoch < 0 && !set.contains("nodeEpoch")) {
        throw new IllegalStateException("nodeEpoch is required");
      }
      return new EngineConfig(
          nodeId,
          nodeEpoch,
          clusterId,
          namespace,
          walCacheSizeBytes,
          blockCacheSizeBytes,
          walUploadThresholdBytes,
          walUploadIntervalMillis,
          streamSplitSizeBytes,
          objectBlockSizeBytes,
          appendWaitMillis,
          maxWaitingAppends,
          compactionIntervalMillis,
          compactionCacheSizeBytes,
          compactionMaxObjectSizeBytes);
    }

    private void once(String name) {
      if (!set.add(name)) {
        throw new IllegalStateException(name + " is already set");
      }
    }
  }
}
