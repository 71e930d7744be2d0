package io.picomq.s3stream.core.compaction;

/**
 * The knobs of stream-set object compaction, named as in the upstream.
 *
 * @param cacheSizeBytes block bytes one round may read into memory; rounds are cut so that each
 *     stays within it (a lone block larger than this gets a round of its own)
 * @param streamSplitSizeBytes a stream's run of contiguous blocks larger than this moves into a
 *     stream object of its own
 * @param maxStreamNumInStreamSet at most this many streams in the new stream-set object
 * @param maxStreamObjectNum at most this many stream objects split out per compaction
 */
public record CompactionLimits(
    long cacheSizeBytes,
    long streamSplitSizeBytes,
    int maxStreamNumInStreamSet,
    int maxStreamObjectNum) {

  public CompactionLimits {
    if (cacheSizeBytes <= 0
        || streamSplitSizeBytes <= 0
        || maxStreamNumInStreamSet <= 0
        || maxStreamObjectNum <= 0) {
      throw new IllegalArgumentException(
          "compaction limits must all be > 0: cacheSizeBytes="
              + cacheSizeBytes
              + ", streamSplitSizeBytes="
              + streamSplitSizeBytes
              + ", maxStreamNumInStreamSet="
              + maxStreamNumInStreamSet
              + ", maxStreamObjectNum="
              + maxStreamObjectNum);
    }
  }

  /**
   * The upstream's recent defaults: a 200 MiB cache, 8 MiB split size, 20000 streams per stream-set
   * object, 10000 stream objects per compaction.
   */
  public static CompactionLimits upstreamDefaults() {
    return new CompactionLimits(200L * 1024 * 1024, 8L * 1024 * 1024, 20_000, 10_000);
  }
}
