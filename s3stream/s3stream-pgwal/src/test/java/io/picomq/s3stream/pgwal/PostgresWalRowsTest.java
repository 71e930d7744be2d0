package io.picomq.s3stream.pgwal;

import static io.picomq.s3stream.pgwal.WalTesting.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.Recovery;
import io.picomq.s3stream.wal.TestRecords;
import io.picomq.s3stream.wal.WalAppendResult;
import io.picomq.s3stream.wal.WalFailedException;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What an insert does when a row already holds its start offset: the row of an attempt whose answer
 * was lost (identical: stored), or another row (corruption: the WAL fails loudly). The row is put
 * there by the test, as the lost attempt would have.
 */
class PostgresWalRowsTest {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();
  private static final int NODE = 2;
  private static final long EPOCH = 9;
  @RegisterExtension static final TestDatabase database = new TestDatabase();

  private final ExecutorService owners = Executors.newFixedThreadPool(2);
  private final String clusterId = "rows-" + CLUSTERS.incrementAndGet();
  private PostgresWals wals;
  private WriteAheadLog wal;

  @BeforeEach
  void open() {
    wals = PostgresWals.open(database.walUri(""), clusterId, Scheduler.system(), owners);
    wal = WalTesting.openAndReset(wals, NODE, EPOCH);
  }

  @AfterEach
  void close() {
    wals.close();
    owners.shutdown();
  }

  @Test
  void findingItsOwnRowIsSuccess() throws SQLException {
    ByteBuf body = TestRecords.body(new Random(1), 1, 0, 500);
    long offset = wal.confirmOffset();
    byte[] framed = FramedRecords.encode(offset, List.of(body));
    insertRow(offset, offset + framed.length, EPOCH, framed);

    WalAppendResult.Accepted accepted = (WalAppendResult.Accepted) wal.append(body);
    assertThat(accepted.offset()).isEqualTo(offset);
    await(accepted.durable());
    assertThat(wal.confirmOffset()).isEqualTo(offset + framed.length);
    wal.close();

    Recovery recovery = WalTesting.startAndRecover(wals, NODE, EPOCH + 1);
    assertThat(recovery.records())
        .singleElement()
        .satisfies(
            record ->
                assertThat(TestRecords.bytes(record.body())).isEqualTo(TestRecords.bytes(body)));
    recovery.release();
    body.release();
  }

  @Test
  void anotherRowAtTheSameOffsetFailsTheWal() throws SQLException {
    ByteBuf body = TestRecords.body(new Random(2), 1, 0, 500);
    long offset = wal.confirmOffset();
    byte[] other =
        FramedRecords.encode(offset, List.of(TestRecords.body(new Random(3), 1, 0, 500)));
    insertRow(offset, offset + other.length, EPOCH, other);

    WalAppendResult.Accepted accepted = (WalAppendResult.Accepted) wal.append(body);
    assertThatThrownBy(() -> await(accepted.durable()))
        .hasRootCauseInstanceOf(WalFailedException.class)
        .rootCause()
        .hasMessageContaining("corrupt")
        .hasMessageContaining("different row at " + offset);
    assertThat(wal.append(body)).isInstanceOf(WalAppendResult.Failed.class);
    body.release();
  }

  private void insertRow(long start, long end, long epoch, byte[] framed) throws SQLException {
    RingGeometry ring = new RingGeometry(64L << 20, 8); // the default ring
    String table = new WalSchema(clusterId, NODE).slotTable(ring.slot(ring.generation(start)));
    try (Connection connection = database.connect();
        PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO "
                    + table
                    + " (start_offset, end_offset, epoch, body) VALUES (?, ?, ?, ?)")) {
      insert.setLong(1, start);
      insert.setLong(2, end);
      insert.setLong(3, epoch);
      insert.setBytes(4, framed);
      insert.executeUpdate();
    }
  }
}
