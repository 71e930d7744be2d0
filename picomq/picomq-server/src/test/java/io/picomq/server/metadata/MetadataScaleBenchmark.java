package io.picomq.server.metadata;

import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.command.NewStreamObject;
import io.picomq.meta.state.MetadataState;
import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.Schema;
import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.backend.SqlDialect;
import io.picomq.sql.log.LogDecodeException;
import io.picomq.sql.log.LogOptions;
import io.picomq.sql.log.LogRow;
import io.picomq.sql.log.RowCodec;
import io.picomq.sql.log.SqlLog;
import io.picomq.sql.log.Transition;
import io.picomq.sql.log.View;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * Measures the metadata plane at a million streams on the path a node runs: retained heap per
 * stream, snapshot size and encode and decode time, a restart of the real SQL log (stored snapshot
 * plus the longest tail of rows, replayed by its tailer), and the cost of applying and publishing
 * one command as the state grows from 10k to 1M streams.
 *
 * <p>Everything goes through what production uses: {@link MetadataStateMachine} (the adapter the
 * node's {@link SqlLog} replicates), rows encoded by {@link RowCodec} exactly as the log's flusher
 * writes them ({@code LogRow(writerId, batchSequence, encoded commands)}), the node's own {@link
 * MetadataPlane#logOptions log options}, and a {@link SqlLog} that stores the snapshot itself and
 * replays the tail on start.
 *
 * <p>The state is built only through commands, as a log would build it: one node registers, the
 * streams are created in batches of {@link Command#MAX_BATCH}, and every tenth stream is opened on
 * the node and gets 100 records committed in a stream-set object shared by 100 streams; every
 * hundredth stream also gets a stream object for the next 1000 records. At 1M streams that is 100k
 * open streams, 1,000 stream-set objects holding 100k ranges, and 10k stream objects.
 *
 * <p>Run with {@code scripts/bench-metadata-scale.sh}; arguments: {@code [streams] [heapRuns]
 * [metaUrl]} (default: a SQLite file in a temporary folder; on Postgres the tables get a random
 * prefix and are dropped afterwards).
 */
public final class MetadataScaleBenchmark {

  private static final int NODE = 1;
  private static final long NODE_EPOCH = 1_000;
  private static final int RANGES_PER_OBJECT = 100;
  private static final long RECORDS_PER_RANGE = 100;
  private static final long RECORDS_PER_STREAM_OBJECT = 1_000;
  private static final Duration CATCH_UP_LIMIT = Duration.ofMinutes(10);

  private static final MetadataStateMachine MACHINE = new MetadataStateMachine();

  /** The options a node's metadata log runs with. */
  private static final LogOptions OPTIONS = MetadataPlane.logOptions("node-" + NODE);

  /** Where each applied state is published, as the tailer publishes its view. */
  private static volatile MetadataState published;

  private MetadataScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    int streams = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int heapRuns = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    String metaUrl = args.length > 2 ? args[2] : null;
    System.out.printf(
        Locale.ROOT,
        "java %s, %d cores, max heap %d MiB, load average %s%n",
        Runtime.version(),
        Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory() >> 20,
        loadAverage());

    if (streams < 100_000 || streams > 2_000_000) {
      throw new IllegalArgumentException(
          "streams "
              + streams
              + " is not in 100,000..2,000,000 (the restart's log layout needs it)");
    }
    heapPerStream(streams, heapRuns);

    List<Command> commands = buildCommands(streams);
    MetadataState state = build(streams, commands);
    snapshotEncodeAndDecode(state);
    restart(state, commands, metaUrl);
    state = null;
    commands = null;

    applyCostBySize(new int[] {10_000, 100_000, streams});
    System.out.printf(Locale.ROOT, "done, load average %s%n", loadAverage());
  }

  // ---------------------------------------------------------------- building the state

  /** The commands that build {@code streams} streams of the documented shape, in log order. */
  static List<Command> buildCommands(int streams) {
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
    return commands;
  }

  static MetadataState build(int streams, List<Command> commands) {
    long start = System.nanoTime();
    MetadataState state = applyAll(MACHINE.initial(), commands);
    System.out.printf(
        Locale.ROOT,
        "built %,d streams (%,d open, %,d catalogued objects) through %,d commands in %.1f s%n",
        state.streams().size(),
        state.streams().values().stream().filter(s -> s.isOpen()).count(),
        state.catalog().size(),
        commands.size(),
        seconds(System.nanoTime() - start));
    return state;
  }

  /** Applies the commands in order, as the tailer does; every one must be accepted. */
  static MetadataState applyAll(MetadataState state, List<Command> commands) {
    MetadataState current = state;
    for (Command command : commands) {
      current = apply(current, command);
    }
    return current;
  }

  private static MetadataState apply(MetadataState state, Command command) {
    Transition<MetadataState, Result> applied = MACHINE.apply(state, command);
    if (applied.result() instanceof Result.Rejected r) {
      throw new IllegalStateException(command + " rejected: " + r);
    }
    published = applied.state();
    return applied.state();
  }

  // ---------------------------------------------------------------- heap

  static void heapPerStream(int streams, int runs) throws LogDecodeException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    List<Command> commands = buildCommands(streams);
    for (int run = 1; run <= runs; run++) {
      long before = usedAfterGc(memory);
      MetadataState state = applyAll(MACHINE.initial(), commands);
      published = null;
      long after = usedAfterGc(memory);
      System.out.printf(
          Locale.ROOT,
          "heap run %d: state of %,d streams retains %,d bytes = %.0f B/stream%n",
          run,
          state.streams().size(),
          after - before,
          (after - before) / (double) streams);
      byte[] snapshot = MACHINE.encodeSnapshot(state);
      state = null;
      long cleared = usedAfterGc(memory);
      MetadataState restored = MACHINE.decodeSnapshot(snapshot);
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

  // ---------------------------------------------------------------- snapshot

  static void snapshotEncodeAndDecode(MetadataState state) throws LogDecodeException {
    byte[] snapshot = null;
    long[] encode = new long[5];
    for (int i = 0; i < encode.length; i++) {
      long start = System.nanoTime();
      snapshot = MACHINE.encodeSnapshot(state);
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
      MetadataState restored = MACHINE.decodeSnapshot(snapshot);
      decode[i] = System.nanoTime() - start;
      if (i == 0 && !restored.equals(state)) {
        throw new IllegalStateException("restored state differs");
      }
    }
    System.out.printf(Locale.ROOT, "snapshot decode %s%n", millis(decode));
  }

  // ---------------------------------------------------------------- restart of the SQL log

  /**
   * Lays out the log a restarting node meets at worst, then restarts a {@link SqlLog} on it three
   * times and times {@link SqlLog#start()} until it has applied every stored row.
   *
   * <p>Rows 1 to {@code snapshotEveryRows} hold the build; a first log replays them from empty and
   * stores its snapshot at the last one, truncating the rows below it, as a running node does. The
   * next {@code snapshotEveryRows - 1} rows hold the tail: full rows of 256 commands, the most a
   * node replays after a snapshot before it writes the next one.
   */
  static void restart(MetadataState built, List<Command> commands, String metaUrl)
      throws Exception {
    int interval = Math.toIntExact(OPTIONS.snapshotEveryRows());
    long tailStreams = (interval - 1L) * ((OPTIONS.maxCommandsPerRow() - 1) / 3);
    if (commands.size() < interval
        || (commands.size() + interval - 1) / interval > OPTIONS.maxCommandsPerRow()
        || tailStreams > built.nextStreamId() * 9 / 10) {
      throw new IllegalArgumentException(
          "the build's "
              + commands.size()
              + " commands must fill "
              + interval
              + " rows of 1 to "
              + OPTIONS.maxCommandsPerRow()
              + " and leave "
              + tailStreams
              + " closed streams for the tail: use 100,000 to 2,000,000 streams");
    }
    Path folder = metaUrl == null ? Files.createTempDirectory("picomq-meta-bench") : null;
    String url = metaUrl == null ? "sqlite:" + folder.resolve("meta.db") : metaUrl;
    String prefix =
        "bench" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()) + "_";
    RowWriter rows = new RowWriter(ThreadLocalRandom.current().nextLong());
    try (SqlBackend backend =
        SqlBackend.open(MetaUrl.parse(url), BackendOptions.builder().tablePrefix(prefix).build())) {
      try {
        System.out.printf(
            Locale.ROOT,
            "restart on %s (%s), log options: %,d commands per row at most, snapshot every %,d"
                + " rows, %d rows per read%n",
            backend.describe(),
            backend.dialect(),
            OPTIONS.maxCommandsPerRow(),
            interval,
            OPTIONS.readBatchRows());
        storeBuildAndSnapshot(backend, built, commands, interval, rows);

        List<List<Command>> tail = tailRows(built, interval - 1);
        MetadataState expected = built;
        long tailCommands = 0;
        long tailBytes = 0;
        List<byte[]> tailPayloads = new ArrayList<>(tail.size());
        for (List<Command> row : tail) {
          expected = applyAll(expected, row);
          tailCommands += row.size();
          byte[] payload = rows.encode(row);
          tailBytes += payload.length;
          tailPayloads.add(payload);
        }
        insertRows(backend, interval + 1, tailPayloads);
        long last = interval + (long) tail.size();
        System.out.printf(
            Locale.ROOT,
            "tail: rows %,d to %,d, %,d commands (open, commit, close of %,d streams), %,d payload"
                + " bytes%n",
            interval + 1,
            last,
            tailCommands,
            (tailCommands - tail.size()) / 3,
            tailBytes);

        long[] catchUp = new long[3];
        for (int i = 0; i < catchUp.length; i++) {
          String load = loadAverage();
          long start = System.nanoTime();
          try (SqlLog<MetadataState, Command, Result> log =
              new SqlLog<>(backend, MACHINE, OPTIONS)) {
            View<MetadataState> view =
                log.start().get(CATCH_UP_LIMIT.toSeconds(), TimeUnit.SECONDS);
            catchUp[i] = System.nanoTime() - start;
            System.out.printf(
                Locale.ROOT,
                "restart %d: snapshot at row %,d + %,d rows to a view at row %,d in %d ms (load"
                    + " average before: %s)%n",
                i + 1,
                interval,
                tail.size(),
                view.appliedIndex(),
                catchUp[i] / 1_000_000,
                load);
            if (view.appliedIndex() != last || !view.state().equals(expected)) {
              throw new IllegalStateException("the restarted log's view differs from the expected");
            }
          }
        }
        System.out.printf(
            Locale.ROOT,
            "restart of the SQL log to serving (install snapshot, read, decode and apply %,d"
                + " commands): %s%n",
            tailCommands,
            millis(catchUp));

        withoutSql(MACHINE.encodeSnapshot(built), tailPayloads, expected);
      } finally {
        if (backend.dialect() == SqlDialect.POSTGRES) {
          Schema.drop(backend);
        }
      }
    } finally {
      if (folder != null) {
        deleteTree(folder);
      }
    }
  }

  /** Rows 1 to {@code interval}: the build; a node replays them and stores the snapshot. */
  private static void storeBuildAndSnapshot(
      SqlBackend backend, MetadataState built, List<Command> commands, int interval, RowWriter rows)
      throws Exception {
    List<byte[]> payloads = new ArrayList<>(interval);
    for (int r = 0; r < interval; r++) {
      payloads.add(
          rows.encode(
              commands.subList(
                  (int) ((long) commands.size() * r / interval),
                  (int) ((long) commands.size() * (r + 1) / interval))));
    }
    insertRows(backend, 1, payloads);
    long start = System.nanoTime();
    try (SqlLog<MetadataState, Command, Result> log = new SqlLog<>(backend, MACHINE, OPTIONS)) {
      View<MetadataState> view = log.start().get(CATCH_UP_LIMIT.toSeconds(), TimeUnit.SECONDS);
      long replayed = System.nanoTime() - start;
      if (view.appliedIndex() != interval || !view.state().equals(built)) {
        throw new IllegalStateException("the log built a different state");
      }
      Awaitility.await("the snapshot at row " + interval)
          .atMost(CATCH_UP_LIMIT)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> snapshotIndex(backend) == interval);
      System.out.printf(
          Locale.ROOT,
          "a node replayed the build's %,d rows (%,d commands) from an empty log in %.1f s and"
              + " stored its snapshot at row %,d after %.1f s%n",
          interval,
          commands.size(),
          seconds(replayed),
          interval,
          seconds(System.nanoTime() - start));
    }
  }

  /**
   * The same steps as the restart without the database: decode the state, then per row decode the
   * row and its commands and apply them in order, publishing each row's state.
   */
  private static void withoutSql(byte[] snapshot, List<byte[]> tail, MetadataState expected)
      throws LogDecodeException {
    long[] decode = new long[3];
    long[] replay = new long[3];
    for (int i = 0; i < decode.length; i++) {
      long start = System.nanoTime();
      MetadataState state = MACHINE.decodeSnapshot(snapshot);
      long decoded = System.nanoTime();
      for (byte[] payload : tail) {
        for (byte[] command : RowCodec.decode(payload).commands()) {
          state = MACHINE.apply(state, MACHINE.decodeCommand(command)).state();
        }
        published = state;
      }
      decode[i] = decoded - start;
      replay[i] = System.nanoTime() - decoded;
      if (i == 0 && !state.equals(expected)) {
        throw new IllegalStateException("replay without SQL differs");
      }
    }
    System.out.printf(
        Locale.ROOT,
        "the same without SQL: decode the snapshot's state %s, then decode and apply the tail %s%n",
        millis(decode),
        millis(replay));
  }

  /** Encodes rows as the log's flusher does: one writer id, batch sequences from 1. */
  private static final class RowWriter {
    private final long writerId;
    private long batchSequence;

    RowWriter(long writerId) {
      this.writerId = writerId;
    }

    byte[] encode(List<Command> commands) {
      List<byte[]> encoded = new ArrayList<>(commands.size());
      for (Command command : commands) {
        encoded.add(MACHINE.encodeCommand(command));
      }
      return RowCodec.encode(new LogRow(writerId, ++batchSequence, encoded));
    }
  }

  /** Stores rows at {@code firstIndex} on, in one transaction, as the flusher would one by one. */
  private static void insertRows(SqlBackend backend, long firstIndex, List<byte[]> payloads)
      throws SQLException {
    String sql = "INSERT INTO " + backend.tables().log() + " (idx, payload) VALUES (?, ?)";
    backend.inTransaction(
        connection -> {
          try (PreparedStatement insert = connection.prepareStatement(sql)) {
            for (int i = 0; i < payloads.size(); i++) {
              insert.setLong(1, firstIndex + i);
              insert.setBytes(2, payloads.get(i));
              insert.addBatch();
            }
            return insert.executeBatch();
          }
        });
  }

  private static long snapshotIndex(SqlBackend backend) throws SQLException {
    return backend.withConnection(
        connection -> {
          try (Statement select = connection.createStatement();
              ResultSet row =
                  select.executeQuery(
                      "SELECT COALESCE(MAX(idx), 0) FROM " + backend.tables().snapshot())) {
            row.next();
            return row.getLong(1);
          }
        });
  }

  private static void deleteTree(Path folder) throws IOException {
    try (Stream<Path> paths = Files.walk(folder)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  /**
   * {@code count} full rows: each prepares 85 ids, then opens 85 never-opened streams, commits a
   * stream-set object of 100 records to each and closes it (1 + 85 * 3 = 256 commands).
   */
  static List<List<Command>> tailRows(MetadataState state, int count) {
    List<List<Command>> rows = new ArrayList<>(count);
    long nextObject = state.nextObjectId();
    // The build opened only ids divisible by 10: take ids ending in 1, then in 2, and so on.
    long tens = state.nextStreamId() / 10;
    long k = 0;
    int perRow = (OPTIONS.maxCommandsPerRow() - 1) / 3;
    for (int r = 0; r < count; r++) {
      List<Command> row = new ArrayList<>(OPTIONS.maxCommandsPerRow());
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
      rows.add(row);
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
      MetadataState state = build(size, buildCommands(size));
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

  // ---------------------------------------------------------------- formatting

  private static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException e) {
      return "unknown";
    }
  }

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
