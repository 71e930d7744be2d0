package io.picomq.s3stream.objectstore;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class IoPoolTest {

  private static final Function<Throwable, ObjectStoreException> AS_TRANSIENT =
      e -> new ObjectStoreException(ObjectStoreException.Kind.TRANSIENT, "classified: " + e, e);

  @Test
  void callsRunAndFailuresAreClassifiedByTheBackend() throws Exception {
    try (IoPool pool = new IoPool("test", 2, 4, Duration.ofSeconds(1))) {
      assertThat(pool.submit("ok", () -> 42, AS_TRANSIENT).get(5, TimeUnit.SECONDS)).isEqualTo(42);
      CompletableFuture<Object> failed =
          pool.submit(
              "io",
              () -> {
                throw new IOException("disk");
              },
              AS_TRANSIENT);
      assertThat(failure(failed)).hasMessageContaining("classified: java.io.IOException: disk");
    }
  }

  @Test
  void aCallFromThePoolsOwnThreadRunsThereAndOneFromElsewhereIsHandedToThePool() throws Exception {
    try (IoPool pool = new IoPool("here", 1, 4, Duration.ofSeconds(1));
        IoPool other = new IoPool("other", 1, 4, Duration.ofSeconds(1))) {
      String caller = Thread.currentThread().getName();
      assertThat(pool.runHereOrSubmit("from outside", THREAD_NAME, AS_TRANSIENT).get(5, SECONDS))
          .isNotEqualTo(caller)
          .startsWith("here-");
      // The pool has one thread, busy with the outer call: an inner call handed to the pool would
      // wait for it, so a result within the outer call shows the inner one ran on its thread.
      String inner =
          pool.submit(
                  "outer",
                  () -> pool.runHereOrSubmit("inner", THREAD_NAME, AS_TRANSIENT).getNow("queued"),
                  AS_TRANSIENT)
              .get(5, SECONDS);
      assertThat(inner).startsWith("here-");
      // Another pool's thread is "elsewhere".
      assertThat(
              other
                  .submit(
                      "outer",
                      () ->
                          pool.runHereOrSubmit("inner", THREAD_NAME, AS_TRANSIENT).get(5, SECONDS),
                      AS_TRANSIENT)
                  .get(5, SECONDS))
          .startsWith("here-");
      CompletableFuture<Object> failed =
          pool.submit(
                  "outer",
                  () ->
                      pool.runHereOrSubmit(
                          "inner",
                          () -> {
                            throw new IOException("disk");
                          },
                          AS_TRANSIENT),
                  AS_TRANSIENT)
              .get(5, SECONDS);
      assertThat(failure(failed)).hasMessageContaining("classified: java.io.IOException: disk");
    }
  }

  private static final IoPool.BlockingCall<String> THREAD_NAME =
      () -> Thread.currentThread().getName();

  @Test
  void aFullQueueFailsFastAsTransient() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (IoPool pool = new IoPool("tiny", 1, 1, Duration.ofSeconds(5))) {
      CompletableFuture<Object> running =
          pool.submit("running", () -> block(release), AS_TRANSIENT);
      CompletableFuture<Object> queued = pool.submit("queued", () -> "done", AS_TRANSIENT);
      CompletableFuture<Object> rejected = pool.submit("rejected", () -> "never", AS_TRANSIENT);
      ObjectStoreException e = (ObjectStoreException) failure(rejected);
      assertThat(e.kind()).isEqualTo(ObjectStoreException.Kind.TRANSIENT);
      assertThat(e).hasMessageContaining("rejected").hasMessageContaining("queue is full");
      release.countDown();
      assertThat(running.get(5, TimeUnit.SECONDS)).isEqualTo("unblocked");
      assertThat(queued.get(5, TimeUnit.SECONDS)).isEqualTo("done");
    }
  }

  @Test
  void closeFailsQueuedCallsAndLaterOnesAsClosed() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    IoPool pool = new IoPool("closing", 1, 10, Duration.ofSeconds(5));
    CompletableFuture<Object> running = pool.submit("running", () -> block(release), AS_TRANSIENT);
    CompletableFuture<Object> queued = pool.submit("queued", () -> "never", AS_TRANSIENT);
    Thread closer = new Thread(pool::close);
    closer.start();
    assertThat(((ObjectStoreException) failure(queued)).kind())
        .isEqualTo(ObjectStoreException.Kind.CLOSED);
    release.countDown();
    closer.join(5000);
    assertThat(running.get(5, TimeUnit.SECONDS))
        .as("running calls may finish")
        .isEqualTo("unblocked");
    assertThat(((ObjectStoreException) failure(pool.submit("late", () -> 1, AS_TRANSIENT))).kind())
        .isEqualTo(ObjectStoreException.Kind.CLOSED);
  }

  @Test
  void aBufferReadForACallerWhoCancelledIsReleased() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    ByteBuf buffer = Unpooled.buffer(8);
    try (IoPool pool = new IoPool("cancel", 1, 1, Duration.ofSeconds(5))) {
      CompletableFuture<ByteBuf> read =
          pool.submit(
              "read",
              () -> {
                block(release);
                return buffer;
              },
              AS_TRANSIENT);
      read.cancel(false);
      release.countDown();
    }
    assertThat(buffer.refCnt()).isZero();
  }

  private static Object block(CountDownLatch latch) throws InterruptedException {
    assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    return "unblocked";
  }

  private static Throwable failure(CompletableFuture<?> future) throws Exception {
    try {
      future.get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("expected a failure");
  }
}
