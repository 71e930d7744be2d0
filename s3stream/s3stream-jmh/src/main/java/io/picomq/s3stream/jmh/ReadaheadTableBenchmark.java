package io.picomq.s3stream.jmh;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Why the readahead table ({@code core.read.Readahead}) is a hand-written LRU and not a Caffeine
 * cache: how many reads of sequential readers each table recognizes as continuations.
 *
 * <p>The table remembers a reader by where its next read begins; a read that begins there takes the
 * entry out, and the reader is remembered again at its new end. So every key is written once and
 * taken once, and nothing ever reads a key twice: Caffeine's frequency sketch sees every key once,
 * admission ties, and W-TinyLFU keeps the entries already in its main space and drops the newcomer
 * leaving its small admission window. Here: {@code sequential} readers each read once per round, in
 * a shuffled order, among {@code jumpers} one-off reads per round (random reads that never
 * continue), with the default table of 1,024 readers. A plain LRU recognizes every continuation
 * while fewer than 1,024 reads happen between two reads of one reader.
 *
 * <p>Run: {@code java -cp s3stream/s3stream-jmh/target/benchmarks.jar
 * io.picomq.s3stream.jmh.ReadaheadTableBenchmark [rounds=200] [seed=1]}
 */
public final class ReadaheadTableBenchmark {

  private static final int CAPACITY = 1024;

  private record Position(long streamId, long offset) {}

  /** The two tables under test: take the entry at a position, remember one. */
  private interface Table {
    boolean take(Position position);

    void put(Position position);
  }

  private static final class Lru implements Table {
    private final LinkedHashMap<Position, Boolean> map = new LinkedHashMap<>(64, 0.75f, true);

    @Override
    public boolean take(Position position) {
      return map.remove(position) != null;
    }

    @Override
    public void put(Position position) {
      map.put(position, Boolean.TRUE);
      var it = map.values().iterator();
      while (map.size() > CAPACITY) {
        it.next();
        it.remove();
      }
    }
  }

  private static final class CaffeineTable implements Table {
    private final Cache<Position, Boolean> cache =
        Caffeine.newBuilder().maximumSize(CAPACITY).executor(Runnable::run).build();

    @Override
    public boolean take(Position position) {
      return cache.asMap().remove(position) != null;
    }

    @Override
    public void put(Position position) {
      cache.put(position, Boolean.TRUE);
    }
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    long seed = args.length > 1 ? Long.parseLong(args[1]) : 1;
    System.out.printf(
        Locale.ROOT, "%-10s %-8s %12s %12s%n", "sequential", "jumpers", "LRU", "Caffeine");
    int[][] loads = {{256, 0}, {256, 256}, {512, 256}, {64, 512}, {900, 100}};
    for (int[] load : loads) {
      double lru = recognized(new Lru(), load[0], load[1], rounds, seed);
      double caffeine = recognized(new CaffeineTable(), load[0], load[1], rounds, seed);
      System.out.printf(
          Locale.ROOT, "%-10d %-8d %11.1f%% %11.1f%%%n", load[0], load[1], lru, caffeine);
    }
  }

  /** The share of sequential readers' reads, after the first round, that continued a reader. */
  private static double recognized(
      Table table, int sequential, int jumpers, int rounds, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] next = new long[sequential];
    long continued = 0;
    long reads = 0;
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < sequential + jumpers; i++) {
      order.add(i);
    }
    for (int round = 0; round < rounds; round++) {
      Collections.shuffle(order, new java.util.Random(random.nextLong()));
      for (int who : order) {
        if (who < sequential) {
          boolean known = table.take(new Position(who, next[who]));
          if (round > 0) {
            reads++;
            continued += known ? 1 : 0;
          }
          next[who]++;
          table.put(new Position(who, next[who]));
        } else {
          long stream = 1_000_000L + random.nextInt(1_000_000);
          long offset = random.nextLong(1L << 40);
          table.take(new Position(stream, offset));
          table.put(new Position(stream, offset + 1));
        }
      }
    }
    return 100.0 * continued / reads;
  }
}
