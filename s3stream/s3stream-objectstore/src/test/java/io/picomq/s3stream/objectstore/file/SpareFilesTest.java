package io.picomq.s3stream.objectstore.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectNotFoundException;
import io.picomq.s3stream.objectstore.file.SpareFiles.Kept;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A deleted object's file is written again by a later put, and no reader can tell. */
class SpareFilesTest {

  @TempDir Path root;

  @Test
  void aDeletedObjectsFileIsWhatTheNextPutWrites() throws Exception {
    try (FileObjectStore store = FileObjectStore.open(root, 2)) {
      put(store, "wal/1", "first batch, a little longer than the next");
      Object inode = inodeOf(root.resolve("wal~/1"));
      store.delete(List.of("wal/1")).get(30, TimeUnit.SECONDS);
      put(store, "wal/2", "second batch");

      assertThat(inodeOf(root.resolve("wal~/2"))).as("the same file, reused").isEqualTo(inode);
      assertThat(get(store, "wal/2")).isEqualTo("second batch");
      assertThat(store.list("").get()).containsExactly(new ObjectInfo("wal/2", 12));
      assertThat(store.get("wal/1", 0, -1))
          .failsWithin(30, TimeUnit.SECONDS)
          .withThrowableOfType(Exception.class)
          .withCauseInstanceOf(ObjectNotFoundException.class);
    }
  }

  @Test
  void readsRacingDeletesAndReuseSeeTheirObjectOrNothing() throws Exception {
    long seed = System.nanoTime();
    System.out.println("SpareFilesTest seed " + seed);
    Random random = new Random(seed);
    try (FileObjectStore store = FileObjectStore.open(root, 4)) {
      List<CompletableFuture<?>> reads = new ArrayList<>();
      List<String> mismatches = new ArrayList<>();
      int found = 0;
      int[] lengths = new int[400];
      for (int i = 0; i < lengths.length; i++) {
        lengths[i] = random.nextInt(64 * 1024) + 1;
        put(store, "wal/" + i, contentOf(i, lengths[i]));
        for (int r = 0; r < 3; r++) {
          int key = Math.max(0, i - random.nextInt(3));
          reads.add(
              store
                  .get("wal/" + key, 0, -1)
                  .handle(
                      (buf, error) -> {
                        if (buf == null) {
                          Throwable cause =
                              error instanceof CompletionException ? error.getCause() : error;
                          return cause instanceof ObjectNotFoundException ? "gone" : cause;
                        }
                        try {
                          String text = buf.toString(StandardCharsets.UTF_8);
                          return text.equals(contentOf(key, lengths[key]))
                              ? "ok"
                              : "wal/" + key + " read " + text.length() + " other bytes";
                        } finally {
                          buf.release();
                        }
                      }));
        }
        if (i > 0) {
          store.delete(List.of("wal/" + (i - 1))).get(30, TimeUnit.SECONDS);
        }
      }
      for (CompletableFuture<?> read : reads) {
        Object outcome = read.get(30, TimeUnit.SECONDS);
        if ("ok".equals(outcome)) {
          found++;
        } else if (!"gone".equals(outcome)) {
          mismatches.add(String.valueOf(outcome));
        }
      }
      assertThat(mismatches).as("seed %d", seed).isEmpty();
      assertThat(found).as("reads that found their object").isPositive();
    }
  }

  @Test
  void deletingAKeyThatIsASymbolicLinkRemovesTheLinkAndLeavesItsTargetAlone(@TempDir Path outside)
      throws Exception {
    Path target = Files.writeString(outside.resolve("precious"), "keep me");
    Files.createDirectories(root);
    Files.createSymbolicLink(root.resolve("victim"), target);
    try (FileObjectStore store = FileObjectStore.open(root, 1)) {
      store.delete(List.of("victim")).get(30, TimeUnit.SECONDS);
    }
    assertThat(target).hasContent("keep me");
    assertThat(root.resolve("victim")).doesNotExist();
  }

  @Test
  void thePoolIsBoundedAndAFullPoolLeavesTheDeleteToTheCaller() throws Exception {
    Files.createDirectories(root.resolve("objects"));
    try (SpareFiles spares = new SpareFiles(root, 2)) {
      for (int i = 0; i < 3; i++) {
        Files.writeString(root.resolve("objects/" + i), "data " + i);
      }
      assertThat(spares.keep(root.resolve("objects/0"))).isEqualTo(Kept.KEPT);
      assertThat(spares.keep(root.resolve("objects/1"))).isEqualTo(Kept.KEPT);
      assertThat(spares.keep(root.resolve("objects/2"))).isEqualTo(Kept.DECLINED);
      assertThat(spares.keep(root.resolve("objects/missing"))).isEqualTo(Kept.DECLINED);
      assertThat(root.resolve("objects/0")).doesNotExist();
      assertThat(root.resolve("objects/2")).hasContent("data 2");

      assertThat(spares.claim(root.resolve("objects/.put-a"))).isTrue();
      assertThat(root.resolve("objects/.put-a")).isEmptyFile();
      assertThat(spares.keep(root.resolve("objects/missing"))).isEqualTo(Kept.ABSENT);
      assertThat(spares.claim(root.resolve("objects/.put-b"))).isTrue();
      assertThat(spares.claim(root.resolve("objects/.put-c"))).isFalse();
    }
  }

  @Test
  void aStoreSweepsTheSparesOfOneThatDiedAndLeavesALiveOnesAlone() throws Exception {
    Path pools = root.resolve(SpareFiles.DIRECTORY);
    Files.createDirectories(pools.resolve("dead"));
    Files.writeString(pools.resolve("dead/1"), "");
    Files.writeString(pools.resolve("dead.lock"), "");
    // A store that died between creating its lock file and naming it, and one doing that now.
    Path crashed = Files.writeString(pools.resolve("crashed" + SpareFiles.UNNAMED_SUFFIX), "");
    Files.setLastModifiedTime(crashed, FileTime.from(Instant.now().minus(Duration.ofMinutes(2))));
    Path starting = Files.writeString(pools.resolve("starting" + SpareFiles.UNNAMED_SUFFIX), "");
    try (FileObjectStore live = FileObjectStore.open(root, 1)) {
      put(live, "a", "x");
      live.delete(List.of("a")).get(30, TimeUnit.SECONDS);
      assertThat(pools.resolve("dead")).doesNotExist();
      assertThat(pools.resolve("dead.lock")).doesNotExist();
      assertThat(crashed).doesNotExist();
      assertThat(starting).exists();
      try (FileObjectStore other = FileObjectStore.open(root, 1)) {
        put(other, "b", "y");
        other.delete(List.of("b")).get(30, TimeUnit.SECONDS);
        assertThat(poolsIn(pools)).as("both stores' pools").hasSize(2);
      }
      assertThat(poolsIn(pools)).as("the closed store removed its own").hasSize(1);
    }
    assertThat(poolsIn(pools)).isEmpty();
  }

  private static List<Path> poolsIn(Path pools) throws Exception {
    try (Stream<Path> entries = Files.list(pools)) {
      return entries.filter(Files::isDirectory).toList();
    }
  }

  /** Text of {@code length} bytes that only key {@code key} has. */
  private static String contentOf(int key, int length) {
    String unit = "<" + key + ">";
    return unit.repeat(length / unit.length() + 1).substring(0, length);
  }

  private static Object inodeOf(Path file) throws Exception {
    return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
  }

  private static void put(FileObjectStore store, String key, String content) throws Exception {
    ByteBuf data = Unpooled.copiedBuffer(content, StandardCharsets.UTF_8);
    try {
      store.put(key, data).get(30, TimeUnit.SECONDS);
    } finally {
      data.release();
    }
  }

  private static String get(FileObjectStore store, String key) throws Exception {
    ByteBuf data = store.get(key, 0, -1).get(30, TimeUnit.SECONDS);
    try {
      return data.toString(StandardCharsets.UTF_8);
    } finally {
      data.release();
    }
  }
}
