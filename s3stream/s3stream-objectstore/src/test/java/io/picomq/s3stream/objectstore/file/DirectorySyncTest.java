package io.picomq.s3stream.objectstore.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.objectstore.IoPool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A put answers only once every directory on its object's path is durable in its parent: the ones
 * it made, and the ones a put still running made (the store syncs new directories after the object,
 * not as they are made). The directory fsyncs are recorded, and held on cue.
 */
class DirectorySyncTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path sandbox;
  private Path root;
  private final List<Path> synced = new CopyOnWriteArrayList<>();
  private volatile Path holdAt;
  private final CountDownLatch held = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private FileObjectStore store;

  @BeforeEach
  void open() throws Exception {
    root = sandbox.resolve("objects");
    Files.createDirectories(root);
    store =
        new FileObjectStore(
            root.toRealPath(),
            new IoPool("test-file-store", 4, 64, WAIT),
            ByteBufAllocator.DEFAULT,
            dir -> {
              if (dir.equals(holdAt)) {
                holdAt = null;
                held.countDown();
                try {
                  release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
              synced.add(dir);
            });
    root = root.toRealPath();
  }

  @AfterEach
  void close() {
    release.countDown();
    store.close();
  }

  @Test
  void aPutSyncsTheDirectoriesItMadeIntoTheirParentsBeforeItAnswers() throws Exception {
    store.put("a/b/object", body()).get(WAIT.toSeconds(), TimeUnit.SECONDS);

    Path object = objectPath("a/b/object");
    Path dir = object.getParent();
    assertThat(dir.getParent().getParent()).isEqualTo(root);
    assertThat(synced)
        .as("the object's directory, then each new directory's parent, deepest first")
        .containsExactly(dir, dir.getParent(), root);

    synced.clear();
    store.put("a/b/other", body()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(synced)
        .as("nothing new made: only the directory that gained the object")
        .containsExactly(dir);
  }

  @Test
  void aPutIntoADirectoryAnotherPutMadeButHasNotSyncedSyncsItsParentsToo() throws Exception {
    Path dir = objectPath("a/b/first").getParent();
    holdAt = dir; // the first put stops at its object directory's fsync, before syncing parents
    CompletableFuture<Void> first = store.put("a/b/first", body());
    assertThat(held.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    synced.clear();

    store.put("a/b/second", body()).get(WAIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(first).isNotDone();
    assertThat(synced)
        .as("the second put made nothing, yet syncs the first put's directories into their parents")
        .containsExactly(dir, dir.getParent(), root);
    release.countDown();
    first.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private Path objectPath(String key) {
    Path path = root;
    for (String name : KeyPaths.components(key)) {
      path = path.resolve(name);
    }
    return path;
  }

  private static ByteBuf body() {
    return Unpooled.copiedBuffer("data", StandardCharsets.UTF_8);
  }
}
