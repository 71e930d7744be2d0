package io.picomq.meta.bench;

import io.picomq.meta.MetadataMachine;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.command.NewStreamObject;
import io.picomq.meta.state.MetadataState;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Measures the metadata state at a million streams: retained heap per stream, snapshot size,
 * snapshot encode and decode time, decode plus replay of one snapshot interval of rows, and the
 * cost of applying and publishing one command as the state grows from 10k to 1M streams.
 *
 * <p>The state is built only through commands, as a log would build it: one node registers, the
 * streams are created in batches of {@link Command#MAX_BATCH}, and every tenth stream is opened on
 * the node and gets 100 records committed in a stream-set object shared by 100 streams; every
 * hundredth stream also gets a stream object for the next 1000 records. At 1M streams that is 100k
 * open streams, 1,000 stream-set objects holding 100k ranges, and 10k stream objects.
 *
 * <p>Run with {@code scripts/bench-metadata-scale.sh}; arguments: {@code [streams] [heapRuns]}.
 */
public final class MetadataScaleBenchmark {

  private static final int NODE = 1;
  private static final long NODE_EPOCH = 1_000;
  private static final int RANGES_PER_OBJECT = 100;
  private static final long RECORDS_PER_RANGE = 100;
  private static final long RECORDS_PER_STREAM_OBJECT = 1_000;

  /** Rows between snapshots in the SQL log; the longest tail a restarting node replays. */
  private static final int TAIL_ROWS = 1024;

  /** Where each applied state is published, as the tailer publishes its view. */
  private static volatile MetadataState published;

  private static long rejected;

  private MetadataScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    int streams = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int heapRuns = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    System.out.printf(
        Locale.ROOT,
        "java %s, %d cores, max heap %d MiB%n",
        Runtime.version(),
        Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory() >> 20);

    heapPerStream(streams, heapRuns);

    MetadataState state = build(streams);
    snapshotAndRestore(state);
    state = null;

    applyCostBySize(new int[] {10_000, 100_000, streams});
    if (rejected != 0) {
      throw new IllegalStateException(rejected + " benchmark commands were rejected");
    }
  }

  // ---------------------------------------------------------------- building the state

  /** The commands that build {@code streams} streams of the documented shape, in log rows. */
  static List<List<Command>> buildRows(int streams) {
    List<Command> commands = new ArrayList<>();
    commands.add(new Command.RegisterNode(NODE, NODE_EPOCH, "node-1.picomq.local:9092", 64));
    for (int made = 0; made < streams; made += Command.MAX_BATCH) {
      commands.add(new Command.CreateStreams(Math.min(Command.MAX_BATCH, streams - made)));
    }
    int opened = (streams + 9) / 10;
    int withStreamObject = (streams + 99) / 100;
    int setObjects = (opened + RANGES_PER_OBJECT - 1) / RANGES_PER_OBJECT;
    int ids = setObjects + withStreamObject;
    for (int prepared = 0; prepared < ids; prepared += Command.MAX_BATCH) {
      commands.add(
          new Command.PrepareObjects(Math.min(Command.MAX_BATCH, ids - prepared), Long.MAX_VALUE));
    }
    // Object ids are handed out from 0 in order; the set objects take the first ones.
    long nextSetObject = 0;
    long nextStreamObject = setObjects;
    for (long first = 0; first < streams; first += 10L * RANGES_PER_OBJECT) {
      List<CommittedRange> ranges = new ArrayList<>();
      List<NewStreamObject> streamObjects = new ArrayList<>();
      for (long s = first; s < Math.min(streams, first + 10L * RANGES_PER_OBJECT); s += 10) {
        commands.add(new Command.OpenStream(s, NODE, NODE_EPOCH));
        ranges.add(new CommittedRange(s, 0, 0, RECORDS_PER_RANGE));
        if (s % 100 == 0) {
          streamObjects.add(
              new NewStreamObject(
                  nextStreamObject++,
                  s,
                  0,
                  RECORDS_PER_RANGE,
                  RECORDS_PER_RANGE + RECORDS_PER_STREAM_OBJECT,
                  64 * 1024));
        }
      }
      commands.add(
          new Command.CommitStreamSetObject(
              nextSetObject++,
              NODE,
              NODE_EPOCH,
              ranges.size() * 8 * 1024L,
              ranges,
              streamObjects,
              List.of()));
    }
    return rows(commands);
  }

  static List<List<Command>> rows(List<Command> commands) {
    List<List<Command>> rows = new ArrayList<>();
    for (int i = 0; i < commands.size(); i += MetadataMachine.MAX_COMMANDS_PER_ROW) {
      rows.add(
          List.copyOf(
              commands.subList(
                  i, Math.min(commands.size(), i + MetadataMachine.MAX_COMMANDS_PER_ROW))));
    }
    return rows;
  }

  static MetadataState build(int streams) {
    long start = System.nanoTime();
    MetadataState state = replay(MetadataMachine.initial(), buildRows(streams));
    System.out.printf(
        Locale.ROOT,
        "built %,d streams (%,d open, %,d catalogued objects) through commands in %.1f s%n",
        state.streams().size(),
        state.streams().values().stream().filter(s -> s.isOpen()).count(),
        state.catalog().size(),
        seconds(System.nanoTime() - start));
    return state;
  }

  static MetadataState replay(MetadataState state, List<List<Command>> rows) {
    MetadataState current = state;
    for (List<Command> row : rows) {
      MetadataMachine.AppliedRow applied = MetadataMachine.applyRow(current, row);
      for (Result result : applied.results()) {
        if (result instanceof Result.Rejected r) {
          rejected++;
          if (rejected < 5) {
            System.out.println("rejected: " + r);
          }
        }
      }
      current = applied.state();
      published = current;
    }
    return current;
  }

  // ---------------------------------------------------------------- heap

  static void heapPerStream(int streams, int runs) {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    List<List<Command>> rows = buildRows(streams);
    for (int run = 1; run <= runs; run++) {
      long before = usedAfterGc(memory);
      MetadataState state = replay(MetadataMachine.initial(), rows);
      published = null;
      long after = usedAfterGc(memory);
      System.out.printf(
          Locale.ROOT,
          "heap run %d: state of %,d streams retains %,d bytes = %.0f B/stream%n",
          run,
          state.streams().size(),
          after - before,
          (after - before) / (double) streams);
      byte[] snapshot = MetadataMachine.snapshot(state);
      state = null;
      long cleared = usedAfterGc(memory);
      MetadataState restored = restore(snapshot);
      long restoredAfter = usedAfterGc(memory);
      snapshot = null;
      System.out.printf(
          Locale.ROOT,
          "heap run %d: restored from snapshot retains %,d bytes = %.0f B/stream (%d streams)%n",
          run,
          restoredAfter - cleared,
          (restoredAfter - cleared) / (double) streams,
          restored.streams().size());
      restored = null;
    }
  }

  private static long usedAfterGc(MemoryMXBean memory) {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  // ---------------------------------------------------------------- snapshot and replay

  static void snapshotAndRestore(MetadataState state) throws Exception {
    byte[] snapshot = null;
    long[] encode = new long[5];
    for (int i = 0; i < encode.length; i++) {
      long start = System.nanoTime();
      snapshot = MetadataMachine.snapshot(state);
      encode[i] = System.nanoTime() - start;
    }
    System.out.printf(
        Locale.ROOT,
        "snapshot: %,d bytes (%.1f B/stream); encode %s%n",
        snapshot.length,
        snapshot.length / (double) state.streams().size(),
        millis(encode));

    long[] decode = new long[5];
    for (int i = 0; i < decode.length; i++) {
      long start = System.nanoTime();
      MetadataState restored = MetadataMachine.restore(snapshot);
      decode[i] = System.nanoTime() - start;
      if (i == 0 && !restored.equals(state)) {
        throw new IllegalStateException("restored state differs");
      }
    }
    System.out.printf(Locale.ROOT, "snapshot decode %s%n", millis(decode));

    List<byte[]> tail = tailRows(state);
    long payloadBytes = tail.stream().mapToLong(row -> row.length).sum();
    System.out.printf(
        Locale.ROOT,
        "tail: %,d rows of %d commands, %,d payload bytes%n",
        tail.size(),
        MetadataMachine.MAX_COMMANDS_PER_ROW,
        payloadBytes);
    long[] recover = new long[3];
    long[] replayOnly = new long[3];
    for (int i = 0; i < recover.length; i++) {
      long start = System.nanoTime();
      MetadataState current = MetadataMachine.restore(snapshot);
      long decoded = System.nanoTime();
      for (byte[] row : tail) {
        MetadataMachine.AppliedRow applied =
            MetadataMachine.applyRow(current, MetadataMachine.decodeRow(row));
        current = applied.state();
        published = current;
      }
      long end = System.nanoTime();
      recover[i] = end - start;
      replayOnly[i] = end - decoded;
      if (i == 0) {
        // Check the tail really applied: it was built to be accepted in full.
        MetadataState expected = state;
        for (byte[] row : tail) {
          MetadataMachine.AppliedRow applied =
              MetadataMachine.applyRow(expected, MetadataMachine.decodeRow(row));
          for (Result result : applied.results()) {
            if (result instanceof Result.Rejected) {
              rejected++;
            }
          }
          expected = applied.state();
        }
        if (!expected.equals(current)) {
          throw new IllegalStateException("replay after restore differs");
        }
      }
    }
    System.out.printf(
        Locale.ROOT,
        "decode snapshot + decode and replay %,d tail commands to serving: %s (replay part %s)%n",
        (long) tail.size() * MetadataMachine.MAX_COMMANDS_PER_ROW,
        millis(recover),
        millis(replayOnly));
  }

  private static MetadataState restore(byte[] snapshot) {
    try {
      return MetadataMachine.restore(snapshot);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A full snapshot interval of full rows: each row prepares 85 ids, then opens 85 never-opened
   * streams, commits a stream-set object of 100 records to each and closes it (1 + 85 * 3 = 256).
   */
  static List<byte[]> tailRows(MetadataState state) {
    List<byte[]> rows = new ArrayList<>(TAIL_ROWS);
    long nextObject = state.nextObjectId();
    // The build opened only ids divisible by 10: take ids ending in 1, then in 2, and so on.
    long tens = state.nextStreamId() / 10;
    long k = 0;
    int perRow = (MetadataMachine.MAX_COMMANDS_PER_ROW - 1) / 3;
    for (int r = 0; r < TAIL_ROWS; r++) {
      List<Command> row = new ArrayList<>(MetadataMachine.MAX_COMMANDS_PER_ROW);
      row.add(new Command.PrepareObjects(perRow, Long.MAX_VALUE));
      for (int i = 0; i < perRow; i++, k++) {
        long s = (k % tens) * 10 + 1 + k / tens;
        row.add(new Command.OpenStream(s, NODE, NODE_EPOCH));
        row.add(
            new Command.CommitStreamSetObject(
                nextObject++,
                NODE,
                NODE_EPOCH,
                4096,
                List.of(new CommittedRange(s, 0, 0, RECORDS_PER_RANGE)),
                List.of(),
                List.of()));
        row.add(new Command.CloseStream(s, 0, NODE, NODE_EPOCH));
      }
      rows.add(MetadataMachine.encodeRow(row));
    }
    return rows;
  }

  // ---------------------------------------------------------------- apply cost by size

  /**
   * Applies and publishes single commands against states of each size. The commands are a realistic
   * mix on random streams: open a closed stream, commit 100 records to it, close it (each applied
   * and published on its own), plus a create of one stream.
   */
  static void applyCostBySize(int[] sizes) {
    for (int size : sizes) {
      MetadataState state = build(size);
      Random random = new Random(42);
      // Warm up, then measure; both on fresh streams so that every command is accepted.
      PerCommand warm = measure(state, random, 20_000, size);
      PerCommand cost = measure(warm.state, random, 50_000, size);
      System.out.printf(
          Locale.ROOT,
          "apply+publish at %,9d streams: open %.1f us, commit %.1f us, close %.1f us,"
              + " create %.1f us (mean of %,d each)%n",
          size,
          cost.open,
          cost.commit,
          cost.close,
          cost.create,
          cost.count);
      state = null;
      published = null;
    }
  }

  private record PerCommand(
      MetadataState state, double open, double commit, double close, double create, int count) {}

  private static PerCommand measure(MetadataState start, Random random, int count, int size) {
    MetadataState state = start;
    long open = 0;
    long commit = 0;
    long close = 0;
    long create = 0;
    state = apply(state, new Command.PrepareObjects(Command.MAX_BATCH, Long.MAX_VALUE));
    long nextObject = state.nextObjectId() - Command.MAX_BATCH;
    long objectsLeft = Command.MAX_BATCH;
    for (int i = 0; i < count; i++) {
      if (objectsLeft == 0) {
        state = apply(state, new Command.PrepareObjects(Command.MAX_BATCH, Long.MAX_VALUE));
        nextObject = state.nextObjectId() - Command.MAX_BATCH;
        objectsLeft = Command.MAX_BATCH;
      }
      // A stream the build left closed (ids not divisible by 10).
      long s = random.nextInt(size);
      if (s % 10 == 0) {
        s++;
      }
      long epoch = state.streams().get(s).epoch() + 1;
      long end = state.streams().get(s).endOffset();
      long t0 = System.nanoTime();
      state = apply(state, new Command.OpenStream(s, NODE, NODE_EPOCH));
      long t1 = System.nanoTime();
      state =
          apply(
              state,
              new Command.CommitStreamSetObject(
                  nextObject++,
                  NODE,
                  NODE_EPOCH,
                  4096,
                  List.of(new CommittedRange(s, epoch, end, end + RECORDS_PER_RANGE)),
                  List.of(),
                  List.of()));
      objectsLeft--;
      long t2 = System.nanoTime();
      state = apply(state, new Command.CloseStream(s, epoch, NODE, NODE_EPOCH));
      long t3 = System.nanoTime();
      state = apply(state, new Command.CreateStream());
      long t4 = System.nanoTime();
      open += t1 - t0;
      commit += t2 - t1;
      close += t3 - t2;
      create += t4 - t3;
    }
    return new PerCommand(
        state,
        open / 1e3 / count,
        commit / 1e3 / count,
        close / 1e3 / count,
        create / 1e3 / count,
        count);
  }

  private static MetadataState apply(MetadataState state, Command command) {
    MetadataMachine.AppliedRow applied = MetadataMachine.applyRow(state, List.of(command));
    if (applied.results().get(0) instanceof Result.Rejected r) {
      throw new IllegalStateException(command + " rejected: " + r);
    }
    published = applied.state();
    return applied.state();
  }

  // ---------------------------------------------------------------- formatting

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  private static String millis(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    StringBuilder text = new StringBuilder("ms ");
    for (int i = 0; i < nanos.length; i++) {
      text.append(i == 0 ? "" : "/").append(nanos[i] / 1_000_000);
    }
    return text.append(" (median ")
        .append(sorted[sorted.length / 2] / 1_000_000)
        .append(')')
        .toString();
  }
}
