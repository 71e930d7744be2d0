package io.picomq.sql.backend;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The exclusive lock that keeps a second node off a SQLite metadata file: an OS file lock on {@code
 * PATH.lock}, held for the backend's lifetime.
 *
 * <p>Why a lock file and not SQLite's {@code locking_mode=EXCLUSIVE}: that mode locks the database
 * against our own pool's other connections too, and its failure reads as "database is locked",
 * which says nothing about a second node. An OS lock is released by the kernel when the process
 * dies, so a crashed node never leaves a stale lock behind. The file keeps the holder's pid for the
 * error message; it is not deleted on close (deleting would race with a new opener).
 */
final class SqliteFileLock implements AutoCloseable {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(SqliteFileLock.class);

  private final FileChannel channel;
  private final FileLock lock;

  private SqliteFileLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the lock for {@code database}.
   *
   * @throws DatabaseInUseException if another process or another backend in this process holds it
   */
  static SqliteFileLock acquire(Path database) throws IOException {
    Path lockFile = database.resolveSibling(database.getFileName() + ".lock");
    FileChannel channel =
        FileChannel.open(
            lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      channel.close();
      throw new DatabaseInUseException(
          database, lockFile, "held by this process, pid " + ProcessHandle.current().pid());
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      throw new DatabaseInUseException(database, lockFile, holderOf(lockFile));
    }
    try {
      channel.truncate(0);
      byte[] holder =
          ("pid " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8);
      channel.write(ByteBuffer.wrap(holder), 0);
      channel.force(false);
    } catch (IOException e) {
      lock.release();
      channel.close();
      throw e;
    }
    return new SqliteFileLock(channel, lock);
  }

  private static String holderOf(Path lockFile) {
    try {
      String text = Files.readString(lockFile, StandardCharsets.UTF_8).strip();
      return text.isEmpty() ? "holder unknown" : "held by " + text;
    } catch (IOException e) {
      return "holder unknown";
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException e) {
      // Closing the channel below drops the lock anyway.
      LOG.warn("could not release the SQLite lock explicitly; closing its file", e);
    }
    try {
      channel.close();
    } catch (IOException e) {
      LOG.warn("could not close the SQLite lock file", e);
    }
  }
}
