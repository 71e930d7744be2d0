package io.picomq.s3stream.pgwal;

import static io.picomq.s3stream.pgwal.WalTesting.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.Recovery;
import io.picomq.s3stream.wal.TestRecords;
import io.picomq.s3stream.wal.WalAppendResult;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The ring of slot tables under sustained load: wrap-around, waiting slots, bounded tables. */
class PostgresWalRingTest {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();
  private static final int NODE = 1;
  @RegisterExtension static final TestDatabase database = new TestDatabase();

  private final ExecutorService owners = Executors.newFixedThreadPool(2);
  private final String clusterId = "ring-" + CLUSTERS.incrementAndGet();
  private PostgresWals wals;

  @AfterEach
  void close() {
    wals.close();
    owners.shutdown();
  }

  @Test
  void goesRoundTheRingManyTimesWithTrimsAndTheTablesStayBounded() throws SQLException {
    long segmentBytes = 64 << 10;
    int segments = 4;
    long ringBytes = segmentBytes * segments;
    wals = open(segmentBytes, segments, "maxBytesInBatch=8KiB&maxUnflushedBytes=128KiB");
    WriteAheadLog wal = WalTesting.openAndReset(wals, NODE, 1);
    Random random = new Random(23);
    List<WalTesting.Appended> records = new ArrayList<>();
    long written = 0;
    long largestTables = 0;
    long trimmedThrough = -1;
    int laps = 0;
    for (int i = 0; written < 10 * ringBytes; i++) {
      WalTesting.Appended record = appendWaitingForRoom(wal, random, i, 200 + random.nextInt(1800));
      records.add(record);
      written += 24 + record.bytes().length;
      if (i % 16 == 15) {
        // The engine's part: what was stored is uploaded elsewhere, then trimmed.
        await(record.durable());
        trimmedThrough = record.offset();
        await(wal.trim(trimmedThrough));
      }
      if (written / ringBytes > laps) {
        laps++;
        largestTables = Math.max(largestTables, slotTablesBytes());
      }
    }
    records.forEach(record -> await(record.durable()));
    assertThat(wal.confirmOffset())
        .as("dense offsets: confirm is what was written")
        .isEqualTo(written);
    assertThat(laps).isGreaterThanOrEqualTo(10);

    // Each slot holds at most a segment and a batch of records; pages, TOAST chunks and indexes
    // about double that, plus a few empty pages per table.
    long bound = 2 * segments * (segmentBytes + (8 << 10)) + segments * (64 << 10);
    assertThat(largestTables)
        .as("slot tables (incl. TOAST and indexes) after %d bytes written", written)
        .isLessThanOrEqualTo(bound);
    System.out.println(
        getClass().getSimpleName()
            + ": wrote "
            + written
            + " bytes ("
            + laps
            + " laps of a "
            + ringBytes
            + "-byte ring); the slot tables peaked at "
            + largestTables
            + " bytes");

    wal.close();
    Recovery recovery = WalTesting.startAndRecover(wals, NODE, 2);
    long trim = trimmedThrough;
    WalTesting.assertRecovered(
        recovery, records.stream().filter(record -> record.offset() > trim).toList());
    assertThat(recovery.trimOffset()).isEqualTo(trim);
    recovery.release();
  }

  @Test
  void aSlotHoldingAnUntrimmedGenerationHoldsBackTheNextOneUntilTrimmed() throws SQLException {
    long segmentBytes = 16 << 10;
    int segments = 4;
    wals = open(segmentBytes, segments, "maxBytesInBatch=4KiB&maxUnflushedBytes=32KiB");
    WriteAheadLog wal = WalTesting.openAndReset(wals, NODE, 1);
    Random random = new Random(29);
    long ringEnd = segments * segmentBytes;
    List<WalTesting.Appended> records = new ArrayList<>();
    WalAppendResult refused = null;
    for (int i = 0; refused == null; i++) {
      ByteBuf body = TestRecords.body(random, 1, i, 1000);
      WalAppendResult result = wal.append(body);
      if (result instanceof WalAppendResult.Accepted accepted) {
        records.add(
            new WalTesting.Appended(
                accepted.offset(), TestRecords.bytes(body), accepted.durable()));
        if (accepted.offset() < ringEnd) {
          await(accepted.durable()); // fills the ring; past its end nothing gets stored
        }
      } else {
        refused = result;
      }
      body.release();
    }
    assertThat(refused).isInstanceOf(WalAppendResult.OverCapacity.class);
    // Everything that fits the ring is stored; the first batch of generation 4 waits for slot 0,
    // and the batches after it with it, until appends are refused as over capacity.
    List<WalTesting.Appended> inRing =
        records.stream().filter(record -> record.offset() < ringEnd).toList();
    List<WalTesting.Appended> outside =
        records.stream().filter(record -> record.offset() >= ringEnd).toList();
    assertThat(outside).isNotEmpty().noneMatch(record -> record.durable().isDone());
    assertThat(wal.confirmOffset()).isEqualTo(outside.getFirst().offset());
    assertThat(maxStartOffset()).isLessThan(ringEnd);
    assertThat(rowsOutsideTheirSlot(segmentBytes, segments))
        .as("every row sits in the slot of the segment it starts in")
        .isZero();
    assertThat(rowsCrossingTheirSegmentEnd(segmentBytes))
        .as("records run past segment ends rather than being split or moved")
        .isPositive();

    // Trimming segment 0 frees slot 0: the waiting batches go in.
    long trimAt =
        inRing.stream()
            .filter(record -> record.offset() >= 2 * segmentBytes)
            .findFirst()
            .orElseThrow()
            .offset();
    await(wal.trim(trimAt));
    records.forEach(record -> await(record.durable()));
    assertThat(wal.confirmOffset()).isGreaterThan(ringEnd);
    wal.close();
  }

  private PostgresWals open(long segmentBytes, int segments, String parameters) {
    return PostgresWals.open(
        database.walUri(
            "segmentBytes=" + segmentBytes + "&segments=" + segments + "&" + parameters),
        clusterId,
        Scheduler.system(),
        owners);
  }

  /** Appends; while the WAL is over capacity, waits for the last record (the ring is draining). */
  private static WalTesting.Appended appendWaitingForRoom(
      WriteAheadLog wal, Random random, int index, int payloadBytes) {
    ByteBuf body = TestRecords.body(random, 1, index, payloadBytes);
    try {
      while (true) {
        WalAppendResult result = wal.append(body);
        if (result instanceof WalAppendResult.Accepted accepted) {
          return new WalTesting.Appended(
              accepted.offset(), TestRecords.bytes(body), accepted.durable());
        }
        assertThat(result).isInstanceOf(WalAppendResult.OverCapacity.class);
        long confirmed = wal.confirmOffset();
        Awaitility.await().until(() -> wal.confirmOffset() > confirmed);
      }
    } finally {
      body.release();
    }
  }

  private String slotTablesQuery(String select) {
    return select
        + " FROM pg_tables WHERE starts_with(tablename, 'pico_wal_"
        + WalSchema.clusterHash(clusterId)
        + "_"
        + NODE
        + "_')";
  }

  private long slotTablesBytes() throws SQLException {
    return database.queryLong(
        slotTablesQuery("SELECT sum(pg_total_relation_size(quote_ident(tablename)))"));
  }

  private long maxStartOffset() throws SQLException {
    return rows("max(start_offset)", "true");
  }

  private long rowsOutsideTheirSlot(long segmentBytes, int segments) throws SQLException {
    long outside = 0;
    for (int slot = 0; slot < segments; slot++) {
      outside +=
          rowsOf(
              slot,
              "count(*)",
              "(start_offset / " + segmentBytes + ") % " + segments + " <> " + slot);
    }
    return outside;
  }

  private long rowsCrossingTheirSegmentEnd(long segmentBytes) throws SQLException {
    return rows(
        "count(*)", "end_offset > (start_offset / " + segmentBytes + " + 1) * " + segmentBytes);
  }

  private long rows(String aggregate, String where) throws SQLException {
    long total = 0;
    for (int slot = 0; slot < 4; slot++) {
      long value = rowsOf(slot, aggregate, where);
      total = aggregate.startsWith("max") ? Math.max(total, value) : total + value;
    }
    return total;
  }

  private long rowsOf(int slot, String aggregate, String where) throws SQLException {
    String table = new WalSchema(clusterId, NODE).slotTable(slot);
    try (Connection connection = database.connect();
        Statement query = connection.createStatement();
        ResultSet row =
            query.executeQuery("SELECT " + aggregate + " FROM " + table + " WHERE " + where)) {
      row.next();
      return row.getLong(1);
    }
  }
}
