package io.picomq.s3stream.objectstore.file;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.objectstore.IoPool;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectKeys;
import io.picomq.s3stream.objectstore.ObjectNotFoundException;
import io.picomq.s3stream.objectstore.ObjectRange;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import io.picomq.s3stream.objectstore.ObjectStoreException.Kind;
import io.picomq.s3stream.objectstore.ReadBuffers;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An {@link ObjectStore} over a local directory: one file per object, named by {@link KeyPaths}.
 *
 * <p>Durability: a put writes a temporary file (its name starts with a dot, so listings skip it) in
 * the object's own directory, fsyncs it, renames it over the object, then fsyncs the directory. A
 * crash at any point leaves the old object or the new one, never a mix; at worst a stray temporary
 * file remains, invisible to {@link #list}. Directories a put creates are fsynced into their
 * parents; a delete removes directories it empties and fsyncs what it changed.
 *
 * <p>Reuse: a delete moves the file into {@link SpareFiles} and empties it, and a later put writes
 * into it instead of creating a file (see there why). A get therefore checks, after reading, that
 * the key still names the file it read, and answers not-found if the object was deleted meanwhile.
 *
 * <p>Concurrency: calls run on the {@link IoPool} given at construction (a LIST made from one of
 * its threads runs on that thread). Concurrent puts to one key each write their own temporary file
 * and the last rename wins. A delete that empties a directory races a put about to write there; the
 * put sees the directory vanish and starts again.
 *
 * <p>Containment: every path comes from {@link KeyPaths}, whose names cannot be {@code ..}, hold no
 * separator, and never start with a dot, so no key reaches outside the root. Listing does not
 * follow symbolic links and skips names we would not have produced.
 */
public final class FileObjectStore implements ObjectStore {

  /** How often a put starts again when a concurrent delete removes its directory. */
  private static final int PUT_ATTEMPTS = 8;

  /** How often a get reads again when the object was replaced while it read. */
  private static final int READ_ATTEMPTS = 8;

  /**
   * Emptied files kept for reuse: enough to cover a WAL trim's burst of deletes (64 MiB of WAL in 1
   * KiB batches). Removing a full pool when the store closes takes about 0.7 s on ext4.
   */
  private static final int SPARE_FILES = 65_536;

  /** Buffers per gathering write: Linux's IOV_MAX, the most one writev takes. */
  private static final int GATHER_MAX = 1024;

  private final Path root;
  private final IoPool io;

  private final ReadBuffers readBuffers;
  private final SpareFiles spares;

  /**
   * @param root an existing directory that this store owns
   * @param io runs the blocking file calls; closed with this store
   * @param allocator allocates the buffers {@link #get} returns, through {@link ReadBuffers}
   */
  public FileObjectStore(Path root, IoPool io, ByteBufAllocator allocator) {
    this.root = root.toAbsolutePath().normalize();
    this.io = Objects.requireNonNull(io, "io");
    this.readBuffers = new ReadBuffers(allocator);
    this.spares = new SpareFiles(this.root, SPARE_FILES);
  }

  /** Creates {@code root} if needed and opens a store there with its own thread pool. */
  public static FileObjectStore open(Path root, int ioThreads) throws IOException {
    Files.createDirectories(root);
    return new FileObjectStore(
        root.toRealPath(),
        new IoPool("picomq-file-store", ioThreads, 4096, Duration.ofSeconds(10)),
        ByteBufAllocator.DEFAULT);
  }

  /** The directory the objects live in. */
  public Path root() {
    return root;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The store takes its own reference to {@code data} until the write ends (it runs on a pool
   * thread, perhaps after a retrying caller gave up on it), and never moves the caller's indices.
   */
  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    Objects.requireNonNull(key, "key");
    ByteBuf body = Objects.requireNonNull(data, "data").retainedSlice();
    CompletableFuture<Void> stored =
        run(
            "PUT",
            key,
            () -> {
              write(KeyPaths.components(key), body);
              return null;
            });
    // The caller gets a dependent future: it completes only after our reference is dropped, and
    // cancelling it cannot release the body under a write that is still running.
    return stored.whenComplete((ignored, error) -> body.release());
  }

  /**
   * {@inheritDoc}
   *
   * <p>The buffer is direct memory from this store's {@link ReadBuffers}; the caller releases it.
   */
  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    return run(
        "GET",
        key,
        () -> {
          ObjectRange.checkRequest(key, start, end);
          return read(key, start, end);
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>Called from one of this store's own threads (a WAL checking its fence right after a PUT
   * completed there), the listing runs on that thread: it is a local directory walk, and handing it
   * to another thread only added a wakeup to every acknowledgement.
   */
  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return io.runHereOrSubmit(
        "LIST '" + prefix + "'",
        () -> {
          List<ObjectInfo> found = new ArrayList<>();
          KeyPaths.ListingStart start = KeyPaths.listingStart(prefix);
          Optional<Path> dir = directoryChain(start.directories());
          if (dir.isPresent()) {
            byte[] keySoFar = start.keyPrefix().getBytes(StandardCharsets.UTF_8);
            walk(dir.get(), keySoFar, prefix.getBytes(StandardCharsets.UTF_8), found);
          }
          found.sort((a, b) -> ObjectKeys.ORDER.compare(a.key(), b.key()));
          return List.copyOf(found);
        },
        e -> classify("LIST", prefix, e));
  }

  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    List<String> copy = List.copyOf(keys);
    try {
      copy.forEach(ObjectKeys::check);
    } catch (ObjectStoreException e) {
      return CompletableFuture.failedFuture(e);
    }
    return io.submit(
        "DELETE " + copy.size() + " keys",
        () -> {
          remove(copy);
          return null;
        },
        e -> classify("DELETE", copy.isEmpty() ? "" : copy.get(0), e));
  }

  @Override
  public void close() {
    io.close();
    spares.close();
  }

  @Override
  public String toString() {
    return "FileObjectStore[" + root + "]";
  }

  private <T> CompletableFuture<T> run(String operation, String key, IoPool.BlockingCall<T> call) {
    Objects.requireNonNull(key, "key");
    try {
      ObjectKeys.check(key);
    } catch (ObjectStoreException e) {
      return CompletableFuture.failedFuture(e);
    }
    return io.submit(operation + " '" + key + "'", call, e -> classify(operation, key, e));
  }

  private void write(List<String> names, ByteBuf data) throws IOException {
    Path target = resolve(names);
    Path dir = target.getParent();
    for (int attempt = 1; ; attempt++) {
      try {
        createDirectories(dir);
        writeAndRename(dir, target, data);
        return;
      } catch (NoSuchFileException e) {
        // A concurrent delete pruned the directory between our mkdir and our write.
        if (attempt == PUT_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private void writeAndRename(Path dir, Path target, ByteBuf data) throws IOException {
    Path temp = dir.resolve(".put-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
    // A spare is claimed by renaming it to the temporary name, so it is already there, empty.
    StandardOpenOption open =
        spares.claim(temp) ? StandardOpenOption.TRUNCATE_EXISTING : StandardOpenOption.CREATE_NEW;
    try {
      try (FileChannel out = FileChannel.open(temp, open, StandardOpenOption.WRITE)) {
        writeGathering(out, data.nioBuffers(data.readerIndex(), data.readableBytes()));
        out.force(true);
      }
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    fsync(dir);
  }

  /**
   * Writes {@code buffers} with as few system calls as the kernel allows: a WAL object is a
   * composite of a few buffers per record, and ByteBuf.getBytes(FileChannel) would make a call for
   * each. Each write starts at the first buffer not yet written and spans at most {@link
   * #GATHER_MAX}: the JDK takes a memory session on every buffer in the span, written or empty ones
   * too (Netty's pooled direct buffers have a session on JDK 24+), and releases them by a recursion
   * as deep as their number. Handing it the whole array again after each writev overflowed the
   * stack on a stream object of tens of thousands of pieces.
   */
  private static void writeGathering(FileChannel out, ByteBuffer[] buffers) throws IOException {
    int first = 0;
    while (first < buffers.length) {
      int length = Math.min(GATHER_MAX, buffers.length - first);
      out.write(buffers, first, length);
      while (first < buffers.length && !buffers[first].hasRemaining()) {
        first++;
      }
    }
  }

  /**
   * Reads a range of {@code key}, checking that the file it read is still the object's: a delete
   * may hand the file to {@link SpareFiles}, and a later put rewrites it, under a reader that
   * opened it before. Same inode, size and modification time before the open and after the read
   * mean nothing was renamed onto or off the key, nor written, in between.
   */
  private ByteBuf read(String key, long start, long end) throws IOException {
    Path path = resolve(KeyPaths.components(key));
    for (int attempt = 1; ; attempt++) {
      BasicFileAttributes before = attributesOf(key, path);
      ByteBuf buf;
      IOException failed = null;
      try {
        buf = readOnce(key, path, start, end);
      } catch (ObjectNotFoundException e) {
        throw e;
      } catch (IOException e) {
        buf = null;
        failed = e;
      }
      BasicFileAttributes after;
      try {
        after = attributesOf(key, path);
      } catch (ObjectNotFoundException e) {
        if (buf != null) {
          buf.release();
        }
        throw e; // deleted while we read: what we read may already be another object's
      }
      if (sameFile(before, after)) {
        if (failed != null) {
          throw failed;
        }
        return buf;
      }
      if (buf != null) {
        buf.release();
      }
      if (attempt == READ_ATTEMPTS) {
        throw new ObjectStoreException(
            Kind.TRANSIENT, "'" + key + "' was replaced " + attempt + " times while being read");
      }
    }
  }

  private static BasicFileAttributes attributesOf(String key, Path path) throws IOException {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      throw new ObjectNotFoundException(key, e);
    }
  }

  private static boolean sameFile(BasicFileAttributes a, BasicFileAttributes b) {
    return Objects.equals(a.fileKey(), b.fileKey())
        && a.size() == b.size()
        && a.lastModifiedTime().equals(b.lastModifiedTime());
  }

  private ByteBuf readOnce(String key, Path path, long start, long end) throws IOException {
    try (FileChannel in =
        FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      ObjectRange range = ObjectRange.resolve(key, start, end, in.size());
      if (range.lengthBytes() > Integer.MAX_VALUE) {
        throw new ObjectStoreException(
            Kind.INVALID_ARGUMENT,
            "range " + range + " of '" + key + "' is too large for one buffer");
      }
      int length = (int) range.lengthBytes();
      ByteBuf buf = readBuffers.allocate(length);
      try {
        long position = range.start();
        while (buf.isWritable()) {
          int read = buf.writeBytes(in, position, buf.writableBytes());
          if (read < 0) {
            throw new IOException("'" + key + "' shrank while being read at byte " + position);
          }
          position += read;
        }
        return buf;
      } catch (IOException | RuntimeException e) {
        buf.release();
        throw e;
      }
    } catch (NoSuchFileException e) {
      throw new ObjectNotFoundException(key, e);
    }
  }

  private void remove(List<String> keys) throws IOException {
    Set<Path> touched = new LinkedHashSet<>();
    boolean kept = false;
    for (String key : keys) {
      Path path = resolve(KeyPaths.components(key));
      SpareFiles.Kept outcome = spares.keep(path);
      kept |= outcome == SpareFiles.Kept.KEPT;
      if (outcome == SpareFiles.Kept.KEPT
          || (outcome == SpareFiles.Kept.DECLINED && Files.deleteIfExists(path))) {
        touched.add(path.getParent());
      }
    }
    if (kept) {
      spares.sync();
    }
    Set<Path> survivors = new LinkedHashSet<>();
    for (Path dir : touched) {
      survivors.add(pruneEmpty(dir));
    }
    for (Path dir : survivors) {
      fsyncNearestExisting(dir);
    }
  }

  /** Fsyncs {@code dir}, or if a later prune removed it, the closest ancestor still there. */
  private void fsyncNearestExisting(Path dir) throws IOException {
    for (Path current = dir; ; current = current.getParent()) {
      try {
        fsync(current);
        return;
      } catch (NoSuchFileException e) {
        if (current.equals(root)) {
          throw e;
        }
      }
    }
  }

  /** Removes {@code dir} and its ancestors below the root while empty; returns the first kept. */
  private Path pruneEmpty(Path dir) throws IOException {
    Path current = dir;
    while (!current.equals(root)) {
      try {
        Files.delete(current);
      } catch (DirectoryNotEmptyException | NoSuchFileException e) {
        return current;
      }
      current = current.getParent();
    }
    return root;
  }

  /**
   * The directory at {@code names} below the root, if each step is a directory and not a symbolic
   * link (a walk from the root would not have followed one either).
   */
  private Optional<Path> directoryChain(List<String> names) throws IOException {
    Path dir = root;
    for (String name : names) {
      dir = dir.resolve(name);
      try {
        if (!Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
            .isDirectory()) {
          return Optional.empty();
        }
      } catch (NoSuchFileException e) {
        return Optional.empty();
      }
    }
    return Optional.of(dir);
  }

  /**
   * Appends to {@code found} every object below {@code dir} whose key starts with {@code prefix};
   * {@code keySoFar} is what the path from the root to {@code dir} decodes to. Subtrees that cannot
   * hold a match are skipped.
   */
  private void walk(Path dir, byte[] keySoFar, byte[] prefix, List<ObjectInfo> found)
      throws IOException {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        if (name.startsWith(".")) {
          continue; // a put in progress, or left by a crash
        }
        BasicFileAttributes attributes;
        try {
          attributes =
              Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
          continue; // deleted while we looked
        }
        if (attributes.isDirectory()) {
          Optional<byte[]> piece = KeyPaths.decodeDirectory(name);
          if (piece.isPresent()) {
            byte[] key = concat(keySoFar, piece.get());
            if (startsWith(key, prefix) || startsWith(prefix, key)) {
              walk(entry, key, prefix, found);
            }
          }
        } else if (attributes.isRegularFile()) {
          Optional<byte[]> piece = KeyPaths.decodeFile(name);
          if (piece.isPresent()) {
            byte[] key = concat(keySoFar, piece.get());
            if (startsWith(key, prefix)) {
              canonicalKey(entry, key)
                  .ifPresent(k -> found.add(new ObjectInfo(k, attributes.size())));
            }
          }
        }
      }
    } catch (NoSuchFileException e) {
      // The directory was pruned by a concurrent delete: it held nothing.
    }
  }

  /** The key of a file, if its path is exactly the one {@link KeyPaths} gives that key. */
  private Optional<String> canonicalKey(Path file, byte[] keyBytes) {
    String key = new String(keyBytes, StandardCharsets.UTF_8);
    try {
      ObjectKeys.check(key);
    } catch (ObjectStoreException e) {
      return Optional.empty();
    }
    return resolve(KeyPaths.components(key)).equals(file) ? Optional.of(key) : Optional.empty();
  }

  private Path resolve(List<String> names) {
    Path path = root;
    for (String name : names) {
      path = path.resolve(name);
    }
    return path;
  }

  /** Like {@link Files#createDirectories}, but fsyncs each parent that gains a directory. */
  private void createDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    createDirectories(dir.getParent());
    try {
      Files.createDirectory(dir);
      fsync(dir.getParent());
    } catch (FileAlreadyExistsException e) {
      // Another put created it first.
    }
  }

  /** Forces a directory's entries to disk. */
  static void fsync(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] joined = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, joined, a.length, b.length);
    return joined;
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }

  private ObjectStoreException classify(String operation, String key, Throwable e) {
    if (e instanceof ObjectStoreException known) {
      return known;
    }
    String what = operation + " '" + key + "' under " + root;
    if (io.isClosed() && e instanceof ClosedByInterruptException) {
      return new ObjectStoreException(Kind.CLOSED, what + " stopped: the store closed", e);
    }
    if (e instanceof AccessDeniedException) {
      return new ObjectStoreException(Kind.ACCESS_DENIED, what + " denied: " + e.getMessage(), e);
    }
    if (e instanceof IOException) {
      return new ObjectStoreException(Kind.TRANSIENT, what + " failed: " + e, e);
    }
    return new ObjectStoreException(Kind.PERMANENT, what + " failed: " + e, e);
  }
}
