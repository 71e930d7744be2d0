package io.picomq.sql.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.fault.FaultyBackend;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SnapshotTable} on a SQLite file, where another node's switch lands between a reader's two
 * reads: the chunks the manifest named are gone, and the reader must read the row again.
 */
class SnapshotTableTest {
  @TempDir Path folder;
  private SqlBackend backend;

  @AfterEach
  void close() {
    if (backend != null) {
      backend.close();
    }
  }

  @Test
  void aReaderWhoseChunksANewerSwitchRemovedReadsTheNewerSnapshot() throws Exception {
    backend =
        SqlBackend.open(
            new MetaUrl.SqliteFile(folder.resolve("meta.db")), BackendOptions.defaults());
    SnapshotTable a = new SnapshotTable(backend, 1, 4);
    SnapshotTable b = new SnapshotTable(backend, 2, 4);
    byte[] older =
        SnapshotCodec.encode(10, "the state at row ten".getBytes(StandardCharsets.UTF_8));
    byte[] newer =
        SnapshotCodec.encode(20, "the state at row twenty".getBytes(StandardCharsets.UTF_8));
    assertThat(a.writeAndTruncate(10, older)).isZero();

    // The reader's first statement reads the row (manifest of row 10); before its second, which
    // reads the chunks, node b stores row 20 and removes row 10's chunks.
    FaultyBackend interleaved = new FaultyBackend(backend);
    SnapshotTable reader = new SnapshotTable(interleaved, 3, 4);
    AtomicBoolean switched = new AtomicBoolean();
    interleaved.beforeBorrow(
        2,
        () -> {
          try {
            assertThat(b.writeAndTruncate(20, newer)).isZero();
            switched.set(true);
          } catch (SQLException e) {
            throw new AssertionError(e);
          }
        });

    StoredRow read = reader.read().orElseThrow();

    assertThat(switched).as("the switch ran between the reads").isTrue();
    assertThat(read.index()).isEqualTo(20);
    assertThat(read.payload()).isEqualTo(newer);
    assertThat(reader.stored()).isEqualTo(new SnapshotTable.Stored(20, newer.length));
    // Row 10 is not as new: a late writer of it stores nothing and leaves no chunks behind.
    assertThat(a.writeAndTruncate(10, older)).isEqualTo(-1);
    assertThat(chunkRows()).as("only row 20's chunks").isEqualTo(Math.ceilDiv(newer.length, 4));
    assertThat(reader.read().orElseThrow().payload()).isEqualTo(newer);
  }

  private long chunkRows() throws SQLException {
    return backend.withConnection(
        connection -> {
          try (var select =
                  connection.prepareStatement(
                      "SELECT COUNT(*) FROM " + backend.tables().snapshotChunks());
              var rows = select.executeQuery()) {
            rows.next();
            return rows.getLong(1);
          }
        });
  }
}
