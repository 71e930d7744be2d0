package io.picomq.s3stream.core.blockcache;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/**
 * The block cache's meters, all named {@code s3stream.blockcache.*}:
 *
 * <ul>
 *   <li>{@code hits}: page lookups that found the page in memory;
 *   <li>{@code misses}: page lookups that did not (the page was then fetched, joined a fetch in
 *       flight, or, for a fast read, refused);
 *   <li>{@code gets}, {@code get.bytes}: GETs sent to the store and the bytes they returned;
 *   <li>{@code readahead.bytes}: bytes of pages fetched ahead of any reader;
 *   <li>{@code evictions} (tag {@code cause}: {@code size}, {@code ttl}, {@code invalidated}):
 *       pages dropped;
 *   <li>{@code bytes}, {@code pages}: gauges of what is charged against the capacity.
 * </ul>
 */
final class BlockCacheMetrics {
  final Counter hits;
  final Counter misses;
  final Counter gets;
  final Counter getBytes;
  final Counter readaheadBytes;
  final Counter evictedForSize;
  final Counter expired;
  final Counter invalidated;

  BlockCacheMetrics(MeterRegistry registry, BlockCache cache) {
    hits = counter(registry, "hits", "page lookups served from memory");
    misses = counter(registry, "misses", "page lookups that needed storage");
    gets = counter(registry, "gets", "GETs sent to the object store");
    getBytes = counter(registry, "get.bytes", "bytes the GETs returned");
    readaheadBytes = counter(registry, "readahead.bytes", "bytes fetched ahead of readers");
    evictedForSize = eviction(registry, "size");
    expired = eviction(registry, "ttl");
    invalidated = eviction(registry, "invalidated");
    gauge(registry, cache, "bytes", c -> c.stats().usedBytes(), "bytes charged to the cache");
    gauge(
        registry,
        cache,
        "pages",
        c -> c.stats().residentPages() + c.stats().loadingPages(),
        "pages held or being fetched");
  }

  private static Counter counter(MeterRegistry registry, String name, String description) {
    return Counter.builder("s3stream.blockcache." + name)
        .description(description)
        .register(registry);
  }

  private static Counter eviction(MeterRegistry registry, String cause) {
    return Counter.builder("s3stream.blockcache.evictions")
        .tag("cause", cause)
        .description("pages dropped from the cache")
        .register(registry);
  }

  private static void gauge(
      MeterRegistry registry,
      BlockCache cache,
      String name,
      ToDoubleFunction<BlockCache> value,
      String description) {
    Gauge.builder("s3stream.blockcache." + name, cache, value)
        .description(description)
        .register(registry);
  }
}
