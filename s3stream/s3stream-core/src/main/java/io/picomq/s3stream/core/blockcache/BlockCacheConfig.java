package io.picomq.s3stream.core.blockcache;

import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * How large the block cache is and how it pages objects.
 *
 * @param capacityBytes the most bytes the cache holds at any moment, counting pages still being
 *     fetched; at least one page
 * @param pageSizeBytes the unit of caching: page {@code i} of an object holds its bytes {@code [i *
 *     pageSizeBytes, (i + 1) * pageSizeBytes)}, the last page of an object being shorter
 * @param ttl a page not read for this long is dropped (when the cache next meets it)
 * @param maxGetBytes the largest GET the cache sends: consecutive missing pages are fetched
 *     together up to this size, larger stretches with several GETs in parallel; at least one page
 */
public record BlockCacheConfig(
    long capacityBytes, int pageSizeBytes, Duration ttl, int maxGetBytes) {

  /** The host's default block cache size (PRODUCT.md 3.4). */
  public static final long DEFAULT_CAPACITY_BYTES = 100L << 20;

  public static final int DEFAULT_PAGE_SIZE_BYTES = 1 << 20;

  public static final Duration DEFAULT_TTL = Duration.ofMinutes(5);

  public static final int DEFAULT_MAX_GET_BYTES = 8 << 20;

  public static final BlockCacheConfig DEFAULT =
      new BlockCacheConfig(
          DEFAULT_CAPACITY_BYTES, DEFAULT_PAGE_SIZE_BYTES, DEFAULT_TTL, DEFAULT_MAX_GET_BYTES);

  public BlockCacheConfig {
    Objects.requireNonNull(ttl, "ttl");
    if (pageSizeBytes <= 0) {
      throw new IllegalArgumentException("pageSizeBytes must be > 0: " + pageSizeBytes);
    }
    if (capacityBytes < pageSizeBytes) {
      throw new IllegalArgumentException(
          "capacityBytes " + capacityBytes + " must hold at least one page of " + pageSizeBytes);
    }
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive: " + ttl);
    }
    if (maxGetBytes < pageSizeBytes) {
      throw new IllegalArgumentException(
          "maxGetBytes " + maxGetBytes + " must hold at least one page of " + pageSizeBytes);
    }
  }

  /** How many pages one GET may fetch. */
  public int maxPagesPerGet() {
    return maxGetBytes / pageSizeBytes;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these values; each may still be set once, to derive a variant. */
  public Builder newBuilder() {
    Builder builder = new Builder();
    builder.capacityBytes = capacityBytes;
    builder.pageSizeBytes = pageSizeBytes;
    builder.ttl = ttl;
    builder.maxGetBytes = maxGetBytes;
    return builder;
  }

  /** Builds a config; setting a value twice is refused, unset values keep their defaults. */
  public static final class Builder {
    private final Set<String> set = new HashSet<>();
    private long capacityBytes = DEFAULT_CAPACITY_BYTES;
    private int pageSizeBytes = DEFAULT_PAGE_SIZE_BYTES;
    private Duration ttl = DEFAULT_TTL;
    private int maxGetBytes = DEFAULT_MAX_GET_BYTES;

    private Builder() {}

    public Builder capacityBytes(long value) {
      once("capacityBytes");
      capacityBytes = value;
      return this;
    }

    public Builder pageSizeBytes(int value) {
      once("pageSizeBytes");
      pageSizeBytes = value;
      return this;
    }

    public Builder ttl(Duration value) {
      once("ttl");
      ttl = Objects.requireNonNull(value, "ttl");
      return this;
    }

    public Builder maxGetBytes(int value) {
      once("maxGetBytes");
      maxGetBytes = value;
      return this;
    }

    /**
     * Builds the config. Unless set, {@code maxGetBytes} is raised to the page size if pages are
     * larger than its default.
     *
     * @throws IllegalArgumentException if the values do not make a valid config
     */
    public BlockCacheConfig build() {
      int getBytes =
          set.contains("maxGetBytes") ? maxGetBytes : Math.max(maxGetBytes, pageSizeBytes);
      return new BlockCacheConfig(capacityBytes, pageSizeBytes, ttl, getBytes);
    }

    private void once(String name) {
      if (!set.add(name)) {
        throw new IllegalStateException(name + " is already set");
      }
    }
  }
}
