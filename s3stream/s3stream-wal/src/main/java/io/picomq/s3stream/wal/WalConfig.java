package io.picomq.s3stream.wal;

import io.picomq.s3stream.objectstore.uri.ObjectStorageUri;
import io.picomq.s3stream.walobject.WalObjectCodec;
import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How an {@link ObjectWal} batches and bounds its writes.
 *
 * <p>Defaults depend on what a PUT costs on the store: on S3 a PUT costs money and tens of
 * milliseconds, so batches gather for 250 ms; on a local directory or in memory a PUT costs about
 * an fsync or nothing, and a single sequential writer must not wait out a long timer, so batches
 * gather for 1 ms. On a local directory one batch is unconfirmed at a time ({@code
 * maxInflightUploadCount} 1), so records gather during an fsync; elsewhere up to 50. The sealing
 * rule is in {@code s3stream/specification/wal.md}.
 *
 * @param batchInterval a batch is sealed once this long has passed since the previous seal
 * @param maxBytesInBatch a batch is sealed as soon as its framed records reach this many bytes
 * @param maxUnflushedBytes appends fail fast with {@link WalAppendResult.OverCapacity} rather than
 *     let more framed bytes than this wait to be stored
 * @param maxInflightUploadCount the most sealed batches not yet confirmed, so the most WAL object
 *     PUTs running at once; a seal due to {@code batchInterval} waits for a free slot, so the open
 *     batch keeps gathering meanwhile
 * @param fenceCheck whether records are acknowledged only after a LIST of the fence markers, begun
 *     after their PUT completed, found no newer epoch (default on). Off saves that LIST round trip
 *     per acknowledgement round, but then a writer that a newer process of the same node replaced
 *     keeps acknowledging appends that the newer process's recovery drops: turn it off only where
 *     the operator guarantees one process per node at a time.
 */
public record WalConfig(
    Duration batchInterval,
    long maxBytesInBatch,
    long maxUnflushedBytes,
    int maxInflightUploadCount,
    boolean fenceCheck) {

  /** The URI parameter that sets {@link #batchInterval}. */
  public static final String BATCH_INTERVAL = "batchInterval";

  /** The URI parameter that sets {@link #maxBytesInBatch}. */
  public static final String MAX_BYTES_IN_BATCH = "maxBytesInBatch";

  /** The URI parameter that sets {@link #maxUnflushedBytes}. */
  public static final String MAX_UNFLUSHED_BYTES = "maxUnflushedBytes";

  /** The URI parameter that sets {@link #maxInflightUploadCount}. */
  public static final String MAX_INFLIGHT_UPLOAD_COUNT = "maxInflightUploadCount";

  /**
   * The URI parameter that sets {@link #fenceCheck}: {@code true} or {@code false}. Storage URIs
   * accept it once {@code ObjectStorageUri.WAL_PARAMS} lists it.
   */
  public static final String FENCE_CHECK = "fenceCheck";

  /** The longest batch interval accepted: longer would hold acknowledgements for minutes. */
  public static final Duration MAX_BATCH_INTERVAL = Duration.ofSeconds(60);

  /**
   * The largest batch: one alignment unit of the WAL address space (64 MiB), so a batch never spans
   * more than two units.
   */
  public static final long MAX_BYTES_IN_BATCH_LIMIT = WalObjectCodec.ALIGNMENT_BYTES;

  /** The most PUTs in flight that may be configured. */
  public static final int MAX_INFLIGHT_LIMIT = 1000;

  public WalConfig {
    Objects.requireNonNull(batchInterval, "batchInterval");
    if (batchInterval.isNegative() || batchInterval.compareTo(MAX_BATCH_INTERVAL) > 0) {
      throw new IllegalArgumentException(
          BATCH_INTERVAL + " must be between 0 and " + MAX_BATCH_INTERVAL + ": " + batchInterval);
    }
    if (maxBytesInBatch < 1 || maxBytesInBatch > MAX_BYTES_IN_BATCH_LIMIT) {
      throw new IllegalArgumentException(
          MAX_BYTES_IN_BATCH
              + " must be between 1 and "
              + MAX_BYTES_IN_BATCH_LIMIT
              + " bytes: "
              + maxBytesInBatch);
    }
    if (maxUnflushedBytes < maxBytesInBatch) {
      throw new IllegalArgumentException(
          MAX_UNFLUSHED_BYTES
              + " ("
              + maxUnflushedBytes
              + ") must be at least "
              + MAX_BYTES_IN_BATCH
              + " ("
              + maxBytesInBatch
              + ")");
    }
    if (maxInflightUploadCount < 1 || maxInflightUploadCount > MAX_INFLIGHT_LIMIT) {
      throw new IllegalArgumentException(
          MAX_INFLIGHT_UPLOAD_COUNT
              + " must be between 1 and "
              + MAX_INFLIGHT_LIMIT
              + ": "
              + maxInflightUploadCount);
    }
  }

  /** A configuration with the fence check on. */
  public WalConfig(
      Duration batchInterval,
      long maxBytesInBatch,
      long maxUnflushedBytes,
      int maxInflightUploadCount) {
    this(batchInterval, maxBytesInBatch, maxUnflushedBytes, maxInflightUploadCount, true);
  }

  /** The defaults for {@code s3://}: 250 ms, 8 MiB, 1 GiB, 50, fence check on. */
  public static WalConfig defaults() {
    return builder().build();
  }

  /** A builder with the defaults for {@code s3://}. */
  public static Builder builder() {
    return builder(ObjectStorageUri.Scheme.S3);
  }

  /** A builder with the defaults for a store of the given kind. */
  public static Builder builder(ObjectStorageUri.Scheme scheme) {
    return new Builder(defaultsFor(scheme));
  }

  /**
   * The configuration a storage URI asks for: the defaults of its scheme, overridden by the WAL
   * parameters it carries ({@link ObjectStorageUri#WAL_PARAMS}).
   *
   * <p>Values: {@code batchInterval} is whole milliseconds ({@code 250}) or a number with a unit
   * {@code us}, {@code ms} or {@code s} ({@code 500us}, {@code 2ms}); sizes are bytes ({@code
   * 8388608}) or a number with {@code KiB}, {@code MiB} or {@code GiB}; {@code
   * maxInflightUploadCount} is a count.
   *
   * @throws IllegalArgumentException naming the parameter and the value when one is malformed or
   *     out of range
   */
  public static WalConfig fromUri(ObjectStorageUri uri) {
    return fromParams(uri.scheme(), uri.extraParams());
  }

  /**
   * As {@link #fromUri}, from the parameters alone; names other than the five WAL parameters are
   * ignored (they belong to other layers).
   */
  public static WalConfig fromParams(ObjectStorageUri.Scheme scheme, Map<String, String> params) {
    Builder builder = builder(scheme);
    if (params.containsKey(BATCH_INTERVAL)) {
      builder.batchInterval(parseDuration(BATCH_INTERVAL, params.get(BATCH_INTERVAL)));
    }
    if (params.containsKey(MAX_BYTES_IN_BATCH)) {
      builder.maxBytesInBatch(parseBytes(MAX_BYTES_IN_BATCH, params.get(MAX_BYTES_IN_BATCH)));
    }
    if (params.containsKey(MAX_UNFLUSHED_BYTES)) {
      builder.maxUnflushedBytes(parseBytes(MAX_UNFLUSHED_BYTES, params.get(MAX_UNFLUSHED_BYTES)));
    }
    if (params.containsKey(MAX_INFLIGHT_UPLOAD_COUNT)) {
      builder.maxInflightUploadCount(
          parseCount(MAX_INFLIGHT_UPLOAD_COUNT, params.get(MAX_INFLIGHT_UPLOAD_COUNT)));
    }
    if (params.containsKey(FENCE_CHECK)) {
      builder.fenceCheck(parseBoolean(FENCE_CHECK, params.get(FENCE_CHECK)));
    }
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + " (from the WAL storage URI)", e);
    }
  }

  /** A builder starting from this configuration, to derive a variant. */
  public Builder newBuilder() {
    return new Builder(this);
  }

  private static WalConfig defaultsFor(ObjectStorageUri.Scheme scheme) {
    return switch (scheme) {
      case S3 -> new WalConfig(Duration.ofMillis(250), 8L << 20, 1L << 30, 50, true);
      // Under load a writer waits for the window then an fsync: at 64 connections 1 ms
      // acknowledged 25% more than 2 ms. One batch unconfirmed at a time lets records gather
      // while an fsync runs instead of queueing as small objects: +40% at 64 and 256 connections
      // on a busy machine (website/pages/docs/engine.md, "The file:// window").
      case FILE -> new WalConfig(Duration.ofMillis(1), 8L << 20, 1L << 30, 1, true);
      case MEMORY -> new WalConfig(Duration.ofMillis(1), 8L << 20, 1L << 30, 50, true);
    };
  }

  /**
   * A duration as WAL URI parameters give it: whole milliseconds ({@code 250}) or a number with a
   * unit {@code us}, {@code ms} or {@code s}. For other WAL configurations' URIs too.
   *
   * @throws IllegalArgumentException naming {@code name} and the value when it is malformed
   */
  public static Duration parseDuration(String name, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unitNanos;
    String digits;
    if (t.endsWith("us")) {
      unitNanos = 1_000L;
      digits = t.substring(0, t.length() - 2);
    } else if (t.endsWith("ms")) {
      unitNanos = 1_000_000L;
      digits = t.substring(0, t.length() - 2);
    } else if (t.endsWith("s")) {
      unitNanos = 1_000_000_000L;
      digits = t.substring(0, t.length() - 1);
    } else {
      unitNanos = 1_000_000L;
      digits = t;
    }
    long amount = parseNonNegative(name, text, digits, "e.g. 250 (ms), 2ms, 500us or 1s");
    return Duration.ofNanos(Math.multiplyExact(amount, unitNanos));
  }

  /**
   * A size as WAL URI parameters give it: bytes ({@code 8388608}) or a number with {@code KiB},
   * {@code MiB} or {@code GiB}. For other WAL configurations' URIs too.
   *
   * @throws IllegalArgumentException naming {@code name} and the value when it is malformed
   */
  public static long parseBytes(String name, String text) {
    String t = text.trim();
    long unit = 1;
    String digits = t;
    String[] suffixes = {"KiB", "MiB", "GiB"};
    for (int i = 0; i < suffixes.length; i++) {
      if (t.endsWith(suffixes[i])) {
        unit = 1L << (10 * (i + 1));
        digits = t.substring(0, t.length() - 3);
      }
    }
    long amount = parseNonNegative(name, text, digits, "e.g. 8388608, 8MiB or 512KiB");
    try {
      return Math.multiplyExact(amount, unit);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(name + "=" + text + " is too large");
    }
  }

  /**
   * {@code true} or {@code false}, for WAL URI parameters.
   *
   * @throws IllegalArgumentException naming {@code name} and the value otherwise
   */
  public static boolean parseBoolean(String name, String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(
              name + "=" + text + " is not a valid value (expected true or false)");
    };
  }

  /**
   * A whole, non-negative number, for WAL URI parameters.
   *
   * @throws IllegalArgumentException naming {@code name} and the value when it is malformed
   */
  public static int parseCount(String name, String text) {
    long count = parseNonNegative(name, text, text.trim(), "a whole number, e.g. 50");
    if (count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(name + "=" + text + " is too large");
    }
    return (int) count;
  }

  private static long parseNonNegative(String name, String text, String digits, String expected) {
    if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException(
          name + "=" + text + " is not a valid value (expected " + expected + ")");
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + "=" + text + " is too large");
    }
  }

  /**
   * Builds a {@link WalConfig}; each setting may be made once, so a value given twice (say, on the
   * URI and again in code) is reported rather than silently overridden.
   */
  public static final class Builder {
    private Duration batchInterval;
    private long maxBytesInBatch;
    private long maxUnflushedBytes;
    private int maxInflightUploadCount;
    private boolean fenceCheck;
    private final Set<String> set = new HashSet<>();

    private Builder(WalConfig base) {
      this.batchInterval = base.batchInterval;
      this.maxBytesInBatch = base.maxBytesInBatch;
      this.maxUnflushedBytes = base.maxUnflushedBytes;
      this.maxInflightUploadCount = base.maxInflightUploadCount;
      this.fenceCheck = base.fenceCheck;
    }

    public Builder batchInterval(Duration interval) {
      once(BATCH_INTERVAL);
      this.batchInterval = Objects.requireNonNull(interval, BATCH_INTERVAL);
      return this;
    }

    public Builder maxBytesInBatch(long bytes) {
      once(MAX_BYTES_IN_BATCH);
      this.maxBytesInBatch = bytes;
      return this;
    }

    public Builder maxUnflushedBytes(long bytes) {
      once(MAX_UNFLUSHED_BYTES);
      this.maxUnflushedBytes = bytes;
      return this;
    }

    public Builder maxInflightUploadCount(int count) {
      once(MAX_INFLIGHT_UPLOAD_COUNT);
      this.maxInflightUploadCount = count;
      return this;
    }

    /** See {@link WalConfig#fenceCheck}: off only where one process per node is guaranteed. */
    public Builder fenceCheck(boolean check) {
      once(FENCE_CHECK);
      this.fenceCheck = check;
      return this;
    }

    /** Checks every value and their relations; the message names the offending parameter. */
    public WalConfig build() {
      return new WalConfig(
          batchInterval, maxBytesInBatch, maxUnflushedBytes, maxInflightUploadCount, fenceCheck);
    }

    private void once(String name) {
      if (!set.add(name)) {
        throw new IllegalStateException(name + " was already set on this builder");
      }
    }
  }
}
