package io.picomq.s3stream.core.logcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Random sequences of puts, seals, commits, evictions and reads against a plain model: the byte
 * accounting is exact after every step, eviction takes only committed blocks, oldest first, and a
 * read returns exactly the model's cached run from the start offset.
 *
 * <p>Reproducing a failure: QuickTheories draws a fresh seed for every property, shrinks a failing
 * sequence, and ends its report with {@code Seed was N}. Passing that seed back as the system
 * property {@code QT_SEED} replays the same sequences exactly, e.g. {@code mvn -pl
 * s3stream/s3stream-core test -Dtest='LogCachePropertyTest' -DQT_SEED=N}.
 */
class LogCachePropertyTest {

  sealed interface Op {}

  record Put(int stream, int count, int payloadBytes) implements Op {}

  record Seal() implements Op {}

  record CommitOldest() implements Op {}

  record Evict(long targetBytes) implements Op {}

  record Get(int stream, int startBack, int span, int maxBytes) implements Op {}

  /** Up to 200 operations, mostly puts and reads, with seals, commits and evictions between. */
  static Gen<List<Op>> operations() {
    Gen<Op> put =
        integers()
            .between(0, 3)
            .zip(integers().between(1, 5), integers().between(0, 300), Put::new);
    Gen<Op> get =
        integers()
            .between(0, 3)
            .zip(
                integers().between(0, 40),
                integers().between(0, 40),
                integers().between(1, 2000),
                Get::new);
    Gen<Op> evict = longs().between(0, 20_000).map(Evict::new);
    Gen<Op> op =
        Generate.frequency(
            Pair.of(8, put),
            Pair.of(2, Generate.constant(new Seal())),
            Pair.of(2, Generate.constant(new CommitOldest())),
            Pair.of(1, evict),
            Pair.of(4, get));
    return lists().of(op).ofSizeBetween(0, 200);
  }

  /** A batch as the model knows it. */
  private record ModelBatch(int stream, long base, int count, int size) {}

  /** A block as the model knows it. */
  private static final class ModelBlock {
    final List<ModelBatch> batches = new ArrayList<>();
    boolean sealed;
    boolean committed;
    boolean evicted;

    long size() {
      return batches.stream().mapToLong(ModelBatch::size).sum();
    }
  }

  @Test
  void theCacheAgreesWithTheModel() {
    qt().withExamples(300).forAll(operations()).checkAssert(LogCachePropertyTest::agreesWithModel);
  }

  private static void agreesWithModel(List<Op> ops) {
    LogCache cache = new LogCache(1 << 20, 0);
    List<ModelBlock> blocks = new ArrayList<>(List.of(new ModelBlock()));
    List<CacheBlock> sealedBlocks = new ArrayList<>();
    Map<Integer, Long> next = new HashMap<>();
    long wal = 0;
    try {
      for (Op op : ops) {
        switch (op) {
          case Put p -> {
            long base = next.getOrDefault(p.stream(), 0L);
            ByteBuf encoded =
                Unpooled.buffer(33 + p.payloadBytes()).writeZero(33 + p.payloadBytes());
            cache.put(p.stream(), 0, new CachedBatch(base, p.count(), encoded), wal++);
            next.put(p.stream(), base + p.count());
            blocks
                .get(blocks.size() - 1)
                .batches
                .add(new ModelBatch(p.stream(), base, p.count(), 33 + p.payloadBytes()));
          }
          case Seal s -> {
            CacheBlock sealed = cache.seal(0);
            ModelBlock last = blocks.get(blocks.size() - 1);
            last.sealed = true;
            if (last.batches.isEmpty()) {
              last.evicted = true; // an empty block is dropped at once
            } else {
              sealedBlocks.add(sealed);
            }
            blocks.add(new ModelBlock());
          }
          case CommitOldest c -> {
            for (int i = 0; i < blocks.size(); i++) {
              ModelBlock b = blocks.get(i);
              if (b.sealed && !b.committed && !b.evicted) {
                b.committed = true;
                cache.markCommitted(sealedBlocks.get(sealedIndex(blocks, i)));
                break;
              }
            }
          }
          case Evict e -> {
            cache.evictCommitted(e.targetBytes());
            long size = liveBytes(blocks);
            for (int i = 0; i < blocks.size() - 1 && size > e.targetBytes(); i++) {
              ModelBlock b = blocks.get(i);
              if (b.evicted) {
                continue;
              }
              if (!b.committed) {
                break;
              }
              b.evicted = true;
              size -= b.size();
            }
          }
          case Get g -> {
            long end = next.getOrDefault(g.stream(), 0L);
            long start = Math.max(0, end - g.startBack());
            long stop = Math.min(end, start + g.span());
            List<CachedBatch> got = cache.get(g.stream(), start, stop, g.maxBytes());
            List<Long> bases = got.stream().map(CachedBatch::baseOffset).toList();
            got.forEach(CachedBatch::release);
            assertThat(bases).isEqualTo(expected(blocks, g.stream(), start, stop, g.maxBytes()));
          }
        }
        assertThat(cache.sizeBytes()).isEqualTo(liveBytes(blocks));
      }
    } finally {
      for (CacheBlock b : cache.blocks()) {
        cache.markCommitted(b);
      }
      cache.seal(0);
      cache.blocks().forEach(cache::markCommitted);
      cache.evictCommitted(0);
    }
  }

  private static int sealedIndex(List<ModelBlock> blocks, int modelIndex) {
    int n = 0;
    for (int i = 0; i < modelIndex; i++) {
      if (blocks.get(i).sealed && !blocks.get(i).batches.isEmpty()) {
        n++;
      }
    }
    return n;
  }

  private static long liveBytes(List<ModelBlock> blocks) {
    return blocks.stream().filter(b -> !b.evicted).mapToLong(ModelBlock::size).sum();
  }

  private static List<Long> expected(
      List<ModelBlock> blocks, int stream, long start, long end, int maxBytes) {
    List<ModelBatch> cached = new ArrayList<>();
    for (ModelBlock b : blocks) {
      if (!b.evicted) {
        b.batches.stream().filter(x -> x.stream() == stream).forEach(cached::add);
      }
    }
    List<Long> out = new ArrayList<>();
    long budget = maxBytes;
    for (ModelBatch b : cached) {
      if (b.base() + b.count() <= start || b.base() >= end || budget <= 0) {
        continue;
      }
      out.add(b.base());
      budget -= b.size();
    }
    return out;
  }
}
