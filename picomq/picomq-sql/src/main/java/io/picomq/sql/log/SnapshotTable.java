package io.picomq.sql.log;

import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.log.SnapshotCodec.Manifest;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Optional;

/**
 * The statements on the single snapshot row {@code (id = 1, idx, payload)} and on the chunk rows
 * {@code (idx, writer, seq, payload)} it points at.
 *
 * <p>A snapshot is written in pieces: each chunk in a transaction of its own, then one short
 * transaction switches the row to a manifest of those chunks ({@link SnapshotCodec.Manifest}).
 * Written whole, a snapshot of tens of MB held SQLite's one write lock for hundreds of ms, and
 * every log write waited behind it. The chunks carry the writer's id, so two nodes storing a
 * snapshot at the same index never mix their pieces.
 *
 * <p>The switch replaces the row only with a newer one, and in the same transaction deletes the
 * chunks of every older snapshot (and of another writer's at the same index), and the log rows
 * <em>below</em> the snapshot's index, keeping the row at the index itself: the log's last index
 * then never falls below the snapshot, which is what keeps {@link LogTable#append} from reusing a
 * truncated index. A reader that sees the truncation therefore also sees the snapshot that covers
 * it. Chunks left by a writer that died before its switch are deleted by the next switch past them.
 *
 * <p>A row written whole by an older build (envelope version 1 in the row itself) is still read.
 */
final class SnapshotTable {
  /** Reads that find a row's chunks already replaced by a newer switch start over this often. */
  private static final int READ_ATTEMPTS = 5;

  private final SqlBackend backend;
  private final long writer;
  private final int chunkBytes;
  private final String readSql;
  private final String storedSql;
  private final String chunksSql;
  private final String insertChunkSql;
  private final String upsertSql;
  private final String dropReplacedChunksSql;
  private final String dropOwnChunksSql;
  private final String truncateSql;

  /**
   * @param writer this log's writer id, which its chunks carry
   * @param chunkBytes the most bytes one chunk row holds
   */
  SnapshotTable(SqlBackend backend, long writer, int chunkBytes) {
    this.backend = backend;
    this.writer = writer;
    this.chunkBytes = chunkBytes;
    String snapshot = backend.tables().snapshot();
    String chunks = backend.tables().snapshotChunks();
    this.readSql = "SELECT idx, payload FROM " + snapshot + " WHERE id = 1";
    this.storedSql =
        "SELECT idx, length(payload), substr(payload, 1, "
            + SnapshotCodec.MANIFEST_BYTES
            + ") FROM "
            + snapshot
            + " WHERE id = 1";
    this.chunksSql =
        "SELECT seq, payload FROM " + chunks + " WHERE idx = ? AND writer = ? ORDER BY seq";
    this.insertChunkSql =
        "INSERT INTO "
            + chunks
            + " (idx, writer, seq, payload) VALUES (?, ?, ?, ?)"
            + " ON CONFLICT (idx, writer, seq) DO NOTHING";
    this.upsertSql =
        "INSERT INTO "
            + snapshot
            + " (id, idx, payload) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE"
            + " SET idx = excluded.idx, payload = excluded.payload WHERE "
            + snapshot
            + ".idx < excluded.idx";
    this.dropReplacedChunksSql =
        "DELETE FROM " + chunks + " WHERE idx < ? OR (idx = ? AND writer <> ?)";
    this.dropOwnChunksSql = "DELETE FROM " + chunks + " WHERE idx = ? AND writer = ?";
    this.truncateSql = "DELETE FROM " + backend.tables().log() + " WHERE idx < ?";
  }

  /**
   * The stored snapshot, if one was ever written: its index and its version 1 envelope, put
   * together from its chunks if it has them.
   *
   * @throws LogDecodeException if the row is a manifest that cannot be read, or its chunks are not
   *     all there
   */
  Optional<StoredRow> read() throws SQLException, LogDecodeException {
    for (int attempt = 1; ; attempt++) {
      Optional<StoredRow> row = readRow();
      if (row.isEmpty() || !SnapshotCodec.isManifest(row.get().payload())) {
        return row;
      }
      Manifest manifest = SnapshotCodec.decodeManifest(row.get().index(), row.get().payload());
      Optional<byte[]> envelope = readChunks(manifest);
      if (envelope.isPresent()) {
        return Optional.of(new StoredRow(manifest.index(), envelope.get()));
      }
      // A newer snapshot replaced this one (and deleted its chunks) between the two reads.
      if (attempt == READ_ATTEMPTS) {
        throw new LogDecodeException(
            "the chunks of the snapshot through row "
                + manifest.index()
                + " are not all there ("
                + manifest.chunks()
                + " chunks, "
                + manifest.totalBytes()
                + " bytes)");
      }
    }
  }

  private Optional<StoredRow> readRow() throws SQLException {
    return backend.withConnection(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(readSql);
              ResultSet rows = select.executeQuery()) {
            return rows.next()
                ? Optional.of(new StoredRow(rows.getLong(1), rows.getBytes(2)))
                : Optional.empty();
          }
        });
  }

  /** The chunks put together, or empty if they are not exactly the ones the manifest names. */
  private Optional<byte[]> readChunks(Manifest manifest) throws SQLException {
    return backend.withConnection(
        connection -> {
          byte[] envelope = new byte[Math.toIntExact(manifest.totalBytes())];
          int filled = 0;
          int seq = 0;
          try (PreparedStatement select = connection.prepareStatement(chunksSql)) {
            select.setLong(1, manifest.index());
            select.setLong(2, manifest.writer());
            try (ResultSet rows = select.executeQuery()) {
              while (rows.next()) {
                byte[] chunk = rows.getBytes(2);
                if (rows.getInt(1) != seq || chunk.length > envelope.length - filled) {
                  return Optional.empty();
                }
                System.arraycopy(chunk, 0, envelope, filled, chunk.length);
                filled += chunk.length;
                seq++;
              }
            }
          }
          return seq == manifest.chunks() && filled == envelope.length
              ? Optional.of(envelope)
              : Optional.empty();
        });
  }

  /** Where the stored snapshot ends and how large it is: cheaper than {@link #read()}. */
  record Stored(long index, long bytes) {
    static final Stored NONE = new Stored(0, 0);
  }

  /** The stored snapshot's index and size, or {@link Stored#NONE} if there is none. */
  Stored stored() throws SQLException {
    return backend.withConnection(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(storedSql);
              ResultSet rows = select.executeQuery()) {
            if (!rows.next()) {
              return Stored.NONE;
            }
            long index = rows.getLong(1);
            long bytes = rows.getLong(2);
            byte[] head = rows.getBytes(3);
            if (head != null && bytes == head.length && SnapshotCodec.isManifest(head)) {
              try {
                bytes = SnapshotCodec.decodeManifest(index, head).totalBytes();
              } catch (LogDecodeException damaged) {
                // Its size is unknown; the tailer reports the damage when it must read it.
              }
            }
            return new Stored(index, bytes);
          }
        });
  }

  /**
   * Stores {@code envelope} (a version 1 envelope) as the snapshot through row {@code index} unless
   * the stored one is as new, and if stored, truncates the log below {@code index}.
   *
   * @return the number of log rows deleted, or -1 if a snapshot at least as new was already stored
   */
  long writeAndTruncate(long index, byte[] envelope) throws SQLException {
    int chunks = Math.max(1, Math.ceilDiv(envelope.length, chunkBytes));
    for (int seq = 0; seq < chunks; seq++) {
      writeChunk(index, seq, envelope);
    }
    byte[] manifest =
        SnapshotCodec.encodeManifest(new Manifest(index, writer, chunks, envelope.length));
    return backend.inTransaction(
        connection -> {
          try (PreparedStatement upsert = connection.prepareStatement(upsertSql)) {
            upsert.setLong(1, index);
            upsert.setBytes(2, manifest);
            if (upsert.executeUpdate() != 1) {
              try (PreparedStatement drop = connection.prepareStatement(dropOwnChunksSql)) {
                drop.setLong(1, index);
                drop.setLong(2, writer);
                drop.executeUpdate();
              }
              return -1L;
            }
          }
          try (PreparedStatement drop = connection.prepareStatement(dropReplacedChunksSql)) {
            drop.setLong(1, index);
            drop.setLong(2, index);
            drop.setLong(3, writer);
            drop.executeUpdate();
          }
          try (PreparedStatement truncate = connection.prepareStatement(truncateSql)) {
            truncate.setLong(1, index);
            return (long) truncate.executeUpdate();
          }
        });
  }

  /** One chunk, in a transaction of its own: the lock it takes is held for one chunk's write. */
  private void writeChunk(long index, int seq, byte[] envelope) throws SQLException {
    int from = seq * chunkBytes;
    byte[] chunk = Arrays.copyOfRange(envelope, from, Math.min(envelope.length, from + chunkBytes));
    backend.inTransaction(
        connection -> {
          try (PreparedStatement insert = connection.prepareStatement(insertChunkSql)) {
            insert.setLong(1, index);
            insert.setLong(2, writer);
            insert.setInt(3, seq);
            insert.setBytes(4, chunk);
            return insert.executeUpdate();
          }
        });
  }
}
