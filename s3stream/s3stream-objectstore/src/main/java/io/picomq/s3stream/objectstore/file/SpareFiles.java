package io.picomq.s3stream.objectstore.file;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emptied files of deleted objects, kept so that later puts write into them instead of creating
 * files.
 *
 * <p>Why: the object WAL creates a file per batch and deletes it once trimmed, hundreds a second.
 * On ext4 without a journal (this project's build machines, and many small VMs) allocating an inode
 * walks past every inode of its group freed in the last minute, and that churn cost a loaded node
 * more CPU than its writes. Databases recycle their log files for the same reason.
 *
 * <p>Each store keeps its spares in a directory of its own, {@code .spare/<id>/} under the root
 * (hidden: no key maps to a dot name), and holds a lock on {@code .spare/<id>.lock} while open, so
 * stores sharing a root (nodes of one cluster on one machine) never touch each other's spares, and
 * the first spare kept after a crash sweeps the directories whose lock nobody holds. A kept file is
 * renamed out of its object's place, then truncated: a spare holds an inode, no data. A reader that
 * opened the object before it was kept may see its bytes change; {@link FileObjectStore}'s reads
 * check for that and answer as for a deleted object.
 *
 * <p>The pool is bounded; beyond it a delete unlinks as before. The bound is meant to cover a WAL
 * trim: a node writing little keeps one small object per batch until its WAL is uploaded, tens of
 * thousands, and a pool smaller than that unlinks most of them and has the next puts allocate
 * inodes right behind the unlinks, the churn the pool is there to avoid. Spares are named by
 * numbers, so the pool's memory is a {@code long} each.
 */
final class SpareFiles implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SpareFiles.class);

  /** The pool's directory under the root. */
  static final String DIRECTORY = ".spare";

  private static final String LOCK_SUFFIX = ".lock";

  /** A lock file's name until its store holds the lock. */
  static final String UNNAMED_SUFFIX = ".new";

  /** How old an unnamed lock file must be to count as left by a crash. */
  private static final Duration UNNAMED_LOCK_AGE = Duration.ofMinutes(1);

  private final Path pools;
  private final int capacity;
  private final Names ready = new Names();
  private final AtomicInteger count = new AtomicInteger();
  private final AtomicLong names = new AtomicLong();
  private volatile Path dir; // set once, under this
  private FileChannel lockChannel; // guarded by this
  private FileLock lock; // guarded by this
  private boolean closed; // guarded by this

  SpareFiles(Path root, int capacity) {
    this.pools = root.resolve(DIRECTORY);
    this.capacity = capacity;
  }

  /**
   * Moves the file at {@code file} into the pool and empties it.
   *
   * @return {@link Kept#KEPT} if it is now a spare, {@link Kept#ABSENT} if no file was there, or
   *     {@link Kept#DECLINED} if the pool is full or closed (the caller deletes the file itself)
   */
  Kept keep(Path file) throws IOException {
    if (count.incrementAndGet() > capacity) {
      count.decrementAndGet();
      return Kept.DECLINED;
    }
    Path own = ownDirectory();
    if (own == null) {
      count.decrementAndGet();
      return Kept.DECLINED;
    }
    long name = names.incrementAndGet();
    Path spare = own.resolve(Long.toString(name));
    try {
      Files.move(file, spare, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      count.decrementAndGet();
      if (Files.isDirectory(own, LinkOption.NOFOLLOW_LINKS)) {
        return Kept.ABSENT;
      }
      throw e; // our own directory is gone: someone removed it under us
    } catch (IOException | RuntimeException e) {
      count.decrementAndGet();
      throw e;
    }
    // Not through a symbolic link someone put in the tree: it is the link that goes, as unlink did.
    try (FileChannel channel =
        FileChannel.open(spare, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      channel.truncate(0);
    } catch (IOException e) {
      count.decrementAndGet();
      Files.deleteIfExists(spare); // the object is gone from its key either way
      return Kept.KEPT;
    }
    ready.push(name);
    return Kept.KEPT;
  }

  /**
   * Claims a spare by renaming it to {@code temp}, a name no one else uses.
   *
   * @return whether an empty file now exists at {@code temp}
   */
  boolean claim(Path temp) throws IOException {
    long name = ready.pop();
    if (name < 0) {
      return false;
    }
    try {
      Files.move(dir.resolve(Long.toString(name)), temp, StandardCopyOption.ATOMIC_MOVE);
      count.decrementAndGet();
      return true;
    } catch (IOException | RuntimeException e) {
      ready.push(name); // most likely the target's directory vanished: the caller starts again
      throw e;
    }
  }

  /** Makes the pool's entries durable, after a batch of {@link #keep} calls. */
  void sync() throws IOException {
    Path own = dir;
    if (own != null) {
      FileObjectStore.fsync(own);
    }
  }

  /** Deletes the spares and this store's directory, and releases its lock. */
  @Override
  public synchronized void close() {
    closed = true;
    if (dir == null) {
      return;
    }
    try {
      removeDirectory(dir);
      lock.release();
      lockChannel.close();
      Files.deleteIfExists(lockPath(dir));
    } catch (IOException e) {
      LOG.warn("could not remove the spare files under {}: {}", dir, e.toString());
    }
  }

  /** This store's directory, made (and the pool swept) on first use; null once closed. */
  private Path ownDirectory() throws IOException {
    Path own = dir;
    return own != null ? own : makeOwnDirectory();
  }

  private synchronized Path makeOwnDirectory() throws IOException {
    if (closed || dir != null) {
      return closed ? null : dir;
    }
    Files.createDirectories(pools);
    Path own = pools.resolve(Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1));
    // The lock file gets its swept-by name only once locked (a lock follows the inode through the
    // rename), so no sweep can take a new store for a dead one.
    Path unlocked = pools.resolve(own.getFileName() + UNNAMED_SUFFIX);
    FileChannel channel =
        FileChannel.open(unlocked, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      lock = channel.lock();
      Files.move(unlocked, lockPath(own), StandardCopyOption.ATOMIC_MOVE);
      Files.createDirectory(own);
    } catch (IOException | RuntimeException e) {
      channel.close();
      Files.deleteIfExists(unlocked);
      throw e;
    }
    lockChannel = channel;
    sweepAbandoned(own);
    dir = own;
    return own;
  }

  /** Removes the pools of stores that ended without closing (their lock is free). */
  private void sweepAbandoned(Path own) {
    try (DirectoryStream<Path> found = Files.newDirectoryStream(pools, "*" + LOCK_SUFFIX)) {
      for (Path lockFile : found) {
        if (lockFile.equals(lockPath(own))) {
          continue;
        }
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
            FileLock held = channel.tryLock()) {
          if (held == null) {
            continue; // another live process
          }
          String name = lockFile.getFileName().toString();
          removeDirectory(pools.resolve(name.substring(0, name.length() - LOCK_SUFFIX.length())));
          Files.deleteIfExists(lockFile);
        } catch (OverlappingFileLockException e) {
          // another store of this process
        } catch (NoSuchFileException e) {
          // swept by someone else meanwhile
        }
      }
    } catch (IOException e) {
      LOG.warn("could not sweep abandoned spare files under {}: {}", pools, e.toString());
    }
    sweepUnnamedLocks();
  }

  /**
   * Removes the lock files of stores that died before naming theirs: a store holds its {@code .new}
   * name for the moment between creating and locking it, so one older than a minute is left by a
   * crash.
   */
  private void sweepUnnamedLocks() {
    FileTime before = FileTime.from(Instant.now().minus(UNNAMED_LOCK_AGE));
    try (DirectoryStream<Path> found = Files.newDirectoryStream(pools, "*" + UNNAMED_SUFFIX)) {
      for (Path unnamed : found) {
        try {
          if (Files.getLastModifiedTime(unnamed, LinkOption.NOFOLLOW_LINKS).compareTo(before) < 0) {
            Files.deleteIfExists(unnamed);
          }
        } catch (NoSuchFileException e) {
          // renamed or swept meanwhile
        }
      }
    } catch (IOException e) {
      LOG.warn("could not sweep unnamed lock files under {}: {}", pools, e.toString());
    }
  }

  private static void removeDirectory(Path directory) throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
      for (Path file : files) {
        Files.deleteIfExists(file);
      }
    } catch (NoSuchFileException e) {
      return;
    }
    Files.deleteIfExists(directory);
  }

  private Path lockPath(Path directory) {
    return pools.resolve(directory.getFileName() + LOCK_SUFFIX);
  }

  /** The names of the spares ready to claim; the newest first (its inode is likeliest cached). */
  private static final class Names {
    private long[] names = new long[64];
    private int size;

    synchronized void push(long name) {
      if (size == names.length) {
        names = Arrays.copyOf(names, size * 2);
      }
      names[size++] = name;
    }

    /** The newest name, or -1 if there is none. */
    synchronized long pop() {
      return size == 0 ? -1 : names[--size];
    }
  }

  /** What {@link #keep} did with a file. */
  enum Kept {
    KEPT,
    ABSENT,
    DECLINED
  }
}
