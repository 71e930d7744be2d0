package io.picomq.s3stream.core.logcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LogCacheTest {

  private final LogCache cache = new LogCache(1 << 20, 0);

  @AfterEach
  void releaseEverything() {
    for (CacheBlock block : cache.blocks()) {
      block.markCommitted();
    }
    cache.seal(0).markCommitted();
    cache.evictCommitted(0);
    assertThat(cache.sizeBytes()).isZero();
  }

  private static CachedBatch batch(long base, int count, int payloadBytes) {
    ByteBuf encoded = Unpooled.buffer(33 + payloadBytes);
    encoded.writerIndex(33 + payloadBytes);
    return new CachedBatch(base, count, encoded);
  }

  private static List<Long> bases(List<CachedBatch> batches) {
    List<Long> bases = batches.stream().map(CachedBatch::baseOffset).toList();
    batches.forEach(CachedBatch::release);
    return bases;
  }

  @Test
  void getFollowsTheDocumentedRangeRules() {
    cache.put(1, 0, batch(10, 10, 100), 0);
    cache.put(1, 0, batch(20, 10, 100), 1);
    assertThat(bases(cache.get(1, 12, 30, 1 << 20))).containsExactly(10L, 20L);
    assertThat(bases(cache.get(1, 5, 30, 1 << 20))).containsExactly(10L, 20L);
    assertThat(bases(cache.get(1, 20, 25, 1 << 20))).containsExactly(20L);
    assertThat(bases(cache.get(1, 30, 40, 1 << 20))).isEmpty();
    assertThat(bases(cache.get(2, 0, 40, 1 << 20))).isEmpty();
  }

  @Test
  void getSpansBlocksAndStopsAtTheByteLimitIncludingTheBatchReachingIt() {
    cache.put(1, 0, batch(0, 1, 100), 0);
    cache.seal(0);
    cache.put(1, 0, batch(1, 1, 100), 1);
    cache.put(1, 0, batch(2, 1, 100), 2);
    assertThat(bases(cache.get(1, 0, 10, 1 << 20))).containsExactly(0L, 1L, 2L);
    assertThat(bases(cache.get(1, 0, 10, 134))).containsExactly(0L, 1L);
    assertThat(bases(cache.get(1, 0, 10, 1))).containsExactly(0L);
  }

  @Test
  void getStopsAtAGapBetweenRuns() {
    // A stale run [0, 5) from an earlier epoch and a new run from 8: never stitched together.
    cache.put(1, 0, batch(0, 5, 10), 0);
    cache.seal(0);
    cache.put(1, 1, batch(8, 2, 10), 1);
    assertThat(bases(cache.get(1, 0, 10, 1 << 20))).containsExactly(0L);
    assertThat(bases(cache.get(1, 6, 10, 1 << 20))).containsExactly(8L);
  }

  @Test
  void accountingCountsEveryBatchUntilEvicted() {
    cache.put(1, 0, batch(0, 1, 1000), 0);
    cache.put(2, 0, batch(0, 1, 500), 1);
    assertThat(cache.sizeBytes()).isEqualTo(1033 + 533);
    CacheBlock first = cache.seal(0);
    cache.put(1, 0, batch(1, 1, 100), 2);
    assertThat(cache.sizeBytes()).isEqualTo(1033 + 533 + 133);
    assertThat(cache.evictCommitted(0)).as("an uncommitted block is never evicted").isZero();
    cache.markCommitted(first);
    assertThat(cache.evictCommitted(0)).isEqualTo(1033 + 533);
    assertThat(cache.sizeBytes()).isEqualTo(133);
    assertThat(bases(cache.get(1, 0, 10, 1 << 20))).containsExactly(1L);
  }

  @Test
  void evictionStopsOnceUnderTheTargetAndKeepsNewerBlocks() {
    cache.put(1, 0, batch(0, 1, 967), 0);
    CacheBlock a = cache.seal(0);
    cache.put(1, 0, batch(1, 1, 967), 1);
    CacheBlock b = cache.seal(0);
    a.markCommitted();
    b.markCommitted();
    assertThat(cache.evictCommitted(1500)).isEqualTo(1000);
    assertThat(bases(cache.get(1, 0, 10, 1 << 20))).containsExactly(1L);
  }

  @Test
  void aSealedBlockIsConfirmedOnceEveryBatchIs() {
    cache.put(1, 0, batch(0, 1, 10), 0);
    CacheBlock block = cache.put(1, 0, batch(1, 1, 10), 1);
    block.onBatchConfirmed();
    CacheBlock sealed = cache.seal(0);
    assertThat(sealed).isSameAs(block);
    assertThat(sealed.confirmed()).isNotDone();
    sealed.onBatchConfirmed();
    assertThat(sealed.confirmed()).isCompleted();
    assertThat(sealed.lastWalOffset()).isEqualTo(1);
  }

  @Test
  void anEmptySealedBlockIsConfirmedAndDropped() {
    CacheBlock empty = cache.seal(0);
    assertThat(empty.isEmpty()).isTrue();
    assertThat(empty.confirmed()).isCompleted();
    assertThat(cache.blocks()).doesNotContain(empty).hasSize(1);
  }

  @Test
  void aBlockRefusesBatchesThatDoNotContinueTheStream() {
    cache.put(1, 0, batch(0, 5, 10), 0);
    CachedBatch gap = batch(6, 1, 10);
    assertThatThrownBy(() -> cache.put(1, 0, gap, 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stream 1");
    gap.release();
    CachedBatch otherEpoch = batch(5, 1, 10);
    assertThatThrownBy(() -> cache.put(1, 1, otherEpoch, 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("epoch");
    otherEpoch.release();
  }
}
