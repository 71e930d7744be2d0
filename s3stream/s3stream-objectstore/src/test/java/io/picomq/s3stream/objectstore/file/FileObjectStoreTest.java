package io.picomq.s3stream.objectstore.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.objectstore.IoPool;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectKeys;
import io.picomq.s3stream.objectstore.ObjectNotFoundException;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import io.picomq.s3stream.objectstore.ObjectStoreException.Kind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What only the file backend has to get right: containment, atomicity, its own layout. */
class FileObjectStoreTest {

  @TempDir Path sandbox;
  private Path root;
  private FileObjectStore store;

  @BeforeEach
  void open() throws IOException {
    root = sandbox.resolve("objects");
    store = FileObjectStore.open(root, 4);
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void aListFromTheStoresOwnThreadRunsOnThatThread() throws Exception {
    // One I/O thread, busy with the outer call: a LIST handed to the pool would still be queued
    // while the outer call looks, so a result there shows it ran in place (the WAL's fence check
    // right after a PUT relies on that to save two thread hand-offs per acknowledgement).
    try (IoPool io = new IoPool("one", 1, 4, Duration.ofSeconds(1))) {
      FileObjectStore single = new FileObjectStore(root, io, ByteBufAllocator.DEFAULT);
      put("fence/1", "x");
      List<ObjectInfo> seenInside =
          io.submit(
                  "outer",
                  () -> single.list("fence/").getNow(null),
                  e -> new ObjectStoreException(Kind.TRANSIENT, "outer", e))
              .get(5, TimeUnit.SECONDS);
      assertThat(seenInside).as("listed before the outer call ended").isNotNull();
      assertThat(seenInside).extracting(ObjectInfo::key).containsExactly("fence/1");
    }
  }

  @Test
  void keysThatLookLikeEscapesStayInsideTheRoot() throws Exception {
    List<String> hostile =
        List.of(
            "..",
            "../escaped",
            "../../etc/passwd",
            "a/../../b",
            "/absolute/path",
            "//double",
            "..\\..\\windows",
            "C:\\Windows\\x",
            "nul\0byte",
            "~/home",
            "%2e%2e/encoded",
            ".hidden",
            "./.",
            "control\n\r\t\u0001chars",
            "s".repeat(1000),
            "é".repeat(500),
            "deep/".repeat(200) + "end");
    for (String key : hostile) {
      put(key, key);
    }

    try (Stream<Path> outside = Files.list(sandbox)) {
      assertThat(outside).as("nothing beside the root").containsExactly(root);
    }
    try (Stream<Path> inside = Files.walk(root)) {
      inside.forEach(
          p -> {
            assertThat(p.toAbsolutePath().normalize()).startsWith(root);
            assertThat(p.getFileName().toString().length())
                .as("name length of %s", p)
                .isLessThanOrEqualTo(KeyPaths.MAX_NAME_CHARS);
          });
    }
    for (String key : hostile) {
      assertThat(get(key)).as("content of %s", key).isEqualTo(key);
    }
    List<String> sorted = hostile.stream().sorted(ObjectKeys.ORDER).toList();
    assertThat(store.list("").get()).extracting(ObjectInfo::key).containsExactlyElementsOf(sorted);
  }

  @Test
  void anObjectOfMoreBuffersThanOneGatheringWriteTakesIsStoredWhole() throws Exception {
    // A WAL object is a composite of a few buffers per record, and a stream object uploaded from
    // one busy stream of tens of thousands. Linux takes at most 1,024 per writev, so the pieces
    // need several writes at the right positions; and the JDK releases the memory sessions of the
    // direct buffers a write took (Netty's pooled ones on JDK 24+ have one) recursively, so
    // handing it all the pieces at once overflowed the stack (found under wrk, 2026-12-06).
    CompositeByteBuf data = Unpooled.compositeBuffer(Integer.MAX_VALUE);
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < 60_000; i++) {
      String piece = "piece-" + i + ";";
      ByteBuf buffer =
          i % 3 == 0
              ? Unpooled.buffer(piece.length())
              : ByteBufAllocator.DEFAULT.directBuffer(piece.length());
      buffer.writeCharSequence(piece, StandardCharsets.US_ASCII);
      data.addComponent(true, buffer);
      expected.append(piece);
    }
    try {
      store.put("wal/composite", data).get(30, TimeUnit.SECONDS);
    } finally {
      data.release();
    }
    assertThat(get("wal/composite")).isEqualTo(expected.toString());
  }

  @Test
  void anInterruptedWriteLeavesNoPartialObject() throws Exception {
    put("logs/a", "committed");
    // A crash mid-put leaves its temporary file beside the object, and nothing else.
    Path dir = root.resolve("logs~");
    Files.writeString(dir.resolve(".put-deadbeef"), "half-writ", StandardCharsets.UTF_8);
    Files.writeString(root.resolve(".put-cafebabe"), "never renamed", StandardCharsets.UTF_8);

    assertThat(get("logs/a")).isEqualTo("committed");
    assertThat(store.list("").get()).containsExactly(new ObjectInfo("logs/a", 9));
    assertThat(failure(() -> store.get("logs/b", 0, -1).get()))
        .isInstanceOf(ObjectNotFoundException.class);

    put("logs/a", "rewritten");
    assertThat(get("logs/a")).isEqualTo("rewritten");
  }

  @Test
  void filesNotWrittenByTheStoreAreNotListed() throws Exception {
    put("real", "x");
    Files.writeString(root.resolve("UPPERCASE"), "not ours", StandardCharsets.UTF_8);
    Files.writeString(root.resolve("bad%zzescape"), "not ours", StandardCharsets.UTF_8);
    Files.writeString(
        root.resolve("%61"), "a non-canonical spelling of 'a'", StandardCharsets.UTF_8);
    Files.createDirectories(root.resolve("plain-directory"));
    Files.writeString(root.resolve("plain-directory/inside"), "not ours", StandardCharsets.UTF_8);
    assertThat(store.list("").get()).extracting(ObjectInfo::key).containsExactly("real");
  }

  @Test
  void aListingUnderAPrefixStartsAtItsDirectoryAndFollowsNoLinkOnTheWay() throws Exception {
    String z = "z".repeat(600);
    put("deep/" + z + "/k", "1");
    put("deep/" + z + "/l/m", "2");
    put("deep/zz", "3");
    put("other/x", "4");
    Files.createSymbolicLink(root.resolve("link~"), root.resolve("other~"));

    assertThat(store.list("deep/" + z + "/").get())
        .extracting(ObjectInfo::key)
        .containsExactly("deep/" + z + "/k", "deep/" + z + "/l/m");
    assertThat(store.list("deep/zz").get())
        .extracting(ObjectInfo::key)
        .containsExactly("deep/zz", "deep/" + z + "/k", "deep/" + z + "/l/m");
    assertThat(store.list("deep/" + z + "/l/").get())
        .extracting(ObjectInfo::key)
        .containsExactly("deep/" + z + "/l/m");
    assertThat(store.list("nothing/here/").get()).isEmpty();
    assertThat(store.list("deep/zz/").get()).as("a file where a directory would be").isEmpty();
    assertThat(store.list("link/").get()).as("through the link").isEmpty();
    assertThat(store.list("").get()).extracting(ObjectInfo::key).hasSize(4);
  }

  @Test
  void deletingTheLastObjectOfADirectoryRemovesTheDirectory() throws Exception {
    put("a/b/c/one", "1");
    put("a/two", "2");
    store.delete(List.of("a/b/c/one")).get();
    assertThat(root.resolve("a~/b~")).doesNotExist();
    assertThat(root.resolve("a~")).isDirectory();
    store.delete(List.of("a/two")).get();
    try (Stream<Path> left = Files.list(root)) {
      assertThat(left).extracting(p -> p.getFileName().toString()).containsOnly(".spare");
    }
    put("a/b/c/again", "3");
    assertThat(get("a/b/c/again")).isEqualTo("3");
  }

  @Test
  void putsRacingDeletesThatEmptyTheirDirectoryAllSucceed() throws Exception {
    List<CompletableFuture<Void>> operations = new ArrayList<>();
    List<ByteBuf> buffers = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      ByteBuf data = Unpooled.wrappedBuffer(new byte[] {(byte) i});
      buffers.add(data);
      operations.add(store.put("race/dir/" + i, data));
      operations.add(store.delete(List.of("race/dir/" + (i - 1))));
    }
    CompletableFuture.allOf(operations.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    buffers.forEach(ByteBuf::release);
    // Each key was deleted after its put was submitted, except the last; but a delete may run
    // before its put, so only this much is certain:
    List<ObjectInfo> left = store.list("race/").get();
    assertThat(left).extracting(ObjectInfo::key).contains("race/dir/299");
    for (ObjectInfo info : left) {
      int i = Integer.parseInt(info.key().substring("race/dir/".length()));
      ByteBuf got = store.get(info.key(), 0, -1).get();
      assertThat(got.readByte()).isEqualTo((byte) i);
      got.release();
    }
  }

  @Test
  void objectsAreFilesNamedByTheirKeys() throws Exception {
    put("logs/2024/a.bin", "x");
    assertThat(root.resolve("logs~/2024~/a.bin")).hasContent("x");
  }

  private void put(String key, String content) throws Exception {
    ByteBuf data = Unpooled.copiedBuffer(content, StandardCharsets.UTF_8);
    try {
      store.put(key, data).get(30, TimeUnit.SECONDS);
    } finally {
      data.release();
    }
  }

  private String get(String key) throws Exception {
    ByteBuf data = store.get(key, 0, -1).get(30, TimeUnit.SECONDS);
    try {
      return new String(ByteBufUtil.getBytes(data), StandardCharsets.UTF_8);
    } finally {
      data.release();
    }
  }

  private static Throwable failure(Callable call) throws Exception {
    try {
      call.call();
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("expected a failure");
  }

  @FunctionalInterface
  private interface Callable {
    Object call() throws Exception;
  }
}
