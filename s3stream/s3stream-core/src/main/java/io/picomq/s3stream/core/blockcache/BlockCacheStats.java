package io.picomq.s3stream.core.blockcache;

/**
 * A consistent snapshot of what the block cache holds, taken under its lock.
 *
 * @param usedBytes bytes charged against the capacity: resident pages plus the reservations of
 *     pages being fetched; never above {@code capacityBytes}
 * @param loadingBytes the part of {@code usedBytes} reserved by pages being fetched
 * @param residentPages pages held in memory
 * @param loadingPages pages being fetched
 * @param capacityBytes the configured limit
 */
public record BlockCacheStats(
    long usedBytes, long loadingBytes, int residentPages, int loadingPages, long capacityBytes) {

  /** Bytes of resident pages. */
  public long residentBytes() {
    return usedBytes - loadingBytes;
  }
}
