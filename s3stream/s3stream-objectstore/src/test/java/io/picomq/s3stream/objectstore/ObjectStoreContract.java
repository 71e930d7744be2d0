package io.picomq.s3stream.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ObjectStore} promises, run against each backend by a small subclass that says
 * how to open one.
 *
 * <p>Each test works under its own random key prefix, so a subclass may hand every test the same
 * bucket (as the S3 one does). Other modules reuse this suite through the test-jar to check their
 * own decorators.
 */
public abstract class ObjectStoreContract {

  /** How long any single operation may take before the test calls it hung. */
  protected static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(60);

  protected ObjectStore store;

  /** Unique per test, ends with '/'. */
  protected String prefix;

  /** Opens a store for one test; it is closed after the test. */
  protected abstract ObjectStore openStore() throws Exception;

  @BeforeEach
  void openStoreForTest() throws Exception {
    store = openStore();
    prefix = "contract-" + UUID.randomUUID() + "/";
  }

  @AfterEach
  void cleanUpAndClose() throws Exception {
    try {
      List<String> left = await(store.list(prefix)).stream().map(ObjectInfo::key).toList();
      await(store.delete(left));
    } catch (ObjectStoreException e) {
      // The test closed the store itself.
    } finally {
      store.close();
    }
  }

  // ---- put and get ----

  @Test
  void putThenGetReturnsTheSameBytes() throws Exception {
    for (int size : new int[] {1, 7, 4096, 100_000}) {
      byte[] data = randomBytes(size, size);
      String key = prefix + "object-" + size;
      put(key, data);
      assertThat(getBytes(key, 0, -1)).as("object of %d bytes", size).isEqualTo(data);
    }
  }

  @Test
  void emptyObjectsAreObjects() throws Exception {
    String key = prefix + "empty";
    put(key, new byte[0]);
    assertThat(getBytes(key, 0, -1)).isEmpty();
    assertThat(getBytes(key, 0, 0)).isEmpty();
    assertThat(await(store.list(prefix))).containsExactly(new ObjectInfo(key, 0));
  }

  @Test
  void putStoresTheReadableBytesAndLeavesTheBufferToTheCaller() throws Exception {
    ByteBuf data = Unpooled.buffer(16);
    data.writeBytes("skip-me|keep-me".getBytes(StandardCharsets.UTF_8));
    data.readerIndex("skip-me|".length());
    await(store.put(prefix + "slice", data));
    assertThat(data.refCnt()).as("the caller still owns the buffer").isEqualTo(1);
    assertThat(data.readerIndex()).as("put must not consume the buffer").isEqualTo(8);
    data.release();
    assertThat(new String(getBytes(prefix + "slice", 0, -1), StandardCharsets.UTF_8))
        .isEqualTo("keep-me");
  }

  @Test
  void getHandsTheCallerABufferItMustRelease() throws Exception {
    put(prefix + "owned", randomBytes(10, 1));
    ByteBuf got = await(store.get(prefix + "owned", 0, -1));
    assertThat(got.refCnt()).isEqualTo(1);
    assertThat(got.release()).as("the caller's release frees it").isTrue();
  }

  @Test
  void overwriteReplacesTheWholeObject() throws Exception {
    String key = prefix + "overwritten";
    put(key, randomBytes(1000, 1));
    byte[] shorter = randomBytes(10, 2);
    put(key, shorter);
    assertThat(getBytes(key, 0, -1)).isEqualTo(shorter);
    assertThat(await(store.list(key))).containsExactly(new ObjectInfo(key, 10));
  }

  // ---- ranged reads ----

  @Test
  void rangedReadsReturnExactlyTheRange() throws Exception {
    byte[] data = randomBytes(100, 3);
    String key = prefix + "ranged";
    put(key, data);
    assertThat(getBytes(key, 0, 10)).as("start").isEqualTo(Arrays.copyOfRange(data, 0, 10));
    assertThat(getBytes(key, 40, 61)).as("middle").isEqualTo(Arrays.copyOfRange(data, 40, 61));
    assertThat(getBytes(key, 90, 100)).as("end").isEqualTo(Arrays.copyOfRange(data, 90, 100));
    assertThat(getBytes(key, 37, -1)).as("to the end").isEqualTo(Arrays.copyOfRange(data, 37, 100));
    assertThat(getBytes(key, 99, 100)).as("last byte").containsExactly(data[99]);
    assertThat(getBytes(key, 0, -1)).as("whole").isEqualTo(data);
  }

  @Test
  void emptyRangesInsideTheObjectAreEmpty() throws Exception {
    String key = prefix + "ranged";
    put(key, randomBytes(100, 4));
    assertThat(getBytes(key, 0, 0)).isEmpty();
    assertThat(getBytes(key, 50, 50)).isEmpty();
    assertThat(getBytes(key, 100, 100)).isEmpty();
    assertThat(getBytes(key, 100, -1)).as("from the very end").isEmpty();
  }

  @Test
  void rangesPastTheEndOrMalformedFailWithoutRetry() throws Exception {
    String key = prefix + "ranged";
    put(key, randomBytes(100, 5));
    long[][] bad = {{90, 101}, {101, -1}, {101, 101}, {100, 200}, {5, 4}, {-1, 10}, {0, -2}};
    for (long[] range : bad) {
      Throwable failure = failureOf(store.get(key, range[0], range[1]));
      assertThat(failure)
          .as("get [%d, %d) of 100 bytes", range[0], range[1])
          .isInstanceOf(ObjectStoreException.class)
          .isNotInstanceOf(ObjectNotFoundException.class);
      ObjectStoreException e = (ObjectStoreException) failure;
      assertThat(e.kind()).isEqualTo(ObjectStoreException.Kind.INVALID_ARGUMENT);
      assertThat(e.isRetryable()).isFalse();
    }
  }

  // ---- missing objects ----

  @Test
  void missingKeysAreNotFound() throws Exception {
    String key = prefix + "never-written";
    for (long[] range : new long[][] {{0, -1}, {0, 10}, {5, -1}, {0, 0}}) {
      Throwable failure = failureOf(store.get(key, range[0], range[1]));
      assertThat(failure)
          .as("get [%d, %d) of a missing key", range[0], range[1])
          .isInstanceOf(ObjectNotFoundException.class);
      assertThat(((ObjectNotFoundException) failure).key()).isEqualTo(key);
      assertThat(((ObjectStoreException) failure).isRetryable()).isFalse();
    }
  }

  @Test
  void deletedObjectsAreNotFound() throws Exception {
    String key = prefix + "deleted";
    put(key, randomBytes(10, 6));
    await(store.delete(List.of(key)));
    assertThat(failureOf(store.get(key, 0, -1))).isInstanceOf(ObjectNotFoundException.class);
    assertThat(await(store.list(prefix))).isEmpty();
  }

  // ---- large objects ----

  @Test
  void largeObjectsRoundTrip() throws Exception {
    int size = 16 * 1024 * 1024 + 3;
    byte[] data = randomBytes(size, 7);
    String key = prefix + "large";
    put(key, data);
    assertThat(getBytes(key, 0, -1)).isEqualTo(data);
    int mid = size / 2;
    assertThat(getBytes(key, mid - 1000, mid + 1000))
        .isEqualTo(Arrays.copyOfRange(data, mid - 1000, mid + 1000));
    // Several MiB from an odd position: a store may read that in pieces (the file store does).
    int from = 12_345;
    int to = from + 3 * 1024 * 1024 + 17;
    assertThat(getBytes(key, from, to)).isEqualTo(Arrays.copyOfRange(data, from, to));
    assertThat(await(store.list(key))).containsExactly(new ObjectInfo(key, size));
  }

  // ---- list ----

  @Test
  void listReturnsEveryKeyUnderThePrefixInOrderAcrossPages() throws Exception {
    int count = 1100; // more than one S3 page of 1000
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      keys.add(prefix + "many/" + String.format(Locale.ROOT, "k%05d", i));
    }
    List<String> shuffled = new ArrayList<>(keys);
    Collections.shuffle(shuffled, new Random(8));
    putAll(shuffled, key -> new byte[sizeOf(key)]);
    put(prefix + "many-not/x", new byte[1]);
    put(prefix + "man", new byte[1]);

    List<ObjectInfo> listed = await(store.list(prefix + "many/"));
    assertThat(listed).extracting(ObjectInfo::key).containsExactlyElementsOf(keys);
    for (ObjectInfo info : listed) {
      assertThat(info.sizeBytes()).as(info.key()).isEqualTo(sizeOf(info.key()));
    }
    assertThat(await(store.list(prefix + "many"))).hasSize(count + 1);
    assertThat(await(store.list(prefix + "nothing-here"))).isEmpty();
  }

  @Test
  void listOrdersKeysByCodePoint() throws Exception {
    List<String> keys = List.of("a", "a-c", "a/b", "a/b/c", "ab", "b", "é", "日本", "\uFFFD", "😀");
    List<String> full = keys.stream().map(k -> prefix + k).toList();
    List<String> shuffled = new ArrayList<>(full);
    Collections.shuffle(shuffled, new Random(9));
    putAll(shuffled, key -> new byte[1]);
    // Code point order is UTF-8 byte order: '-' < '/' < 'b', and U+FFFD < U+1F600 although
    // String.compareTo puts the surrogate pair (0xD83D 0xDE00) first.
    assertThat(await(store.list(prefix)))
        .extracting(ObjectInfo::key)
        .containsExactlyElementsOf(full);
  }

  @Test
  void listPrefixesAreStringPrefixesNotDirectories() throws Exception {
    putAll(
        List.of(prefix + "p/ab", prefix + "p/abc", prefix + "p/a/b", prefix + "p/b"),
        key -> new byte[1]);
    assertThat(await(store.list(prefix + "p/a")))
        .extracting(ObjectInfo::key)
        .containsExactly(prefix + "p/a/b", prefix + "p/ab", prefix + "p/abc");
  }

  // ---- delete ----

  @Test
  void deleteRemovesMoreThanOneBatchAndIgnoresAbsentKeys() throws Exception {
    int count = 1005;
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      keys.add(prefix + "d/" + i);
    }
    putAll(keys, key -> new byte[1]);
    put(prefix + "kept", new byte[1]);
    List<String> toDelete = new ArrayList<>(keys);
    for (int i = 0; i < 10; i++) {
      toDelete.add(prefix + "d/absent-" + i);
    }
    Collections.shuffle(toDelete, new Random(10));
    await(store.delete(toDelete));
    assertThat(await(store.list(prefix)))
        .extracting(ObjectInfo::key)
        .containsExactly(prefix + "kept");
  }

  @Test
  void deletingNothingOrOnlyAbsentKeysSucceeds() throws Exception {
    await(store.delete(List.of()));
    await(store.delete(List.of(prefix + "absent", prefix + "also/absent")));
    await(store.delete(List.of(prefix + "absent", prefix + "absent")));
  }

  // ---- keys ----

  @Test
  void keysWithOddCharactersRoundTrip() throws Exception {
    assertKeysRoundTrip(
        List.of(
            "with space",
            "plus+sign",
            "percent%20encoded",
            "question?mark",
            "hash#tag",
            "amp&er=sand",
            "quote'double\"",
            "tilde~star*",
            "back\\slash",
            "trailing/",
            "UPPER-lower",
            "é-日本-😀",
            "x".repeat(900)));
  }

  /** Keys that look like relative paths; S3 treats them as plain strings and so must we. */
  @Test
  protected void keysWithDotAndEmptySegmentsRoundTrip() throws Exception {
    assertKeysRoundTrip(List.of("dots/../up", "./here", "double//slash", "/leading", "..", "."));
  }

  /** Writes each key with itself as content, reads each back, lists them, deletes them. */
  protected void assertKeysRoundTrip(List<String> suffixes) throws Exception {
    List<String> keys = suffixes.stream().map(k -> prefix + k).sorted(ObjectKeys.ORDER).toList();
    for (String key : keys) {
      put(key, key.getBytes(StandardCharsets.UTF_8));
    }
    for (String key : keys) {
      assertThat(new String(getBytes(key, 0, -1), StandardCharsets.UTF_8)).as(key).isEqualTo(key);
    }
    assertThat(await(store.list(prefix)))
        .extracting(ObjectInfo::key)
        .containsExactlyElementsOf(keys);
    await(store.delete(keys));
    assertThat(await(store.list(prefix))).isEmpty();
  }

  @Test
  void keyThatIsAlsoAPrefixOfOthersCoexistsWithThem() throws Exception {
    put(prefix + "node", new byte[] {1});
    put(prefix + "node/child", new byte[] {2, 2});
    assertThat(getBytes(prefix + "node", 0, -1)).containsExactly(1);
    assertThat(getBytes(prefix + "node/child", 0, -1)).containsExactly(2, 2);
    assertThat(await(store.list(prefix)))
        .containsExactly(
            new ObjectInfo(prefix + "node", 1), new ObjectInfo(prefix + "node/child", 2));
  }

  @Test
  void unusableKeysAreRejected() throws Exception {
    String tooLong = prefix + "k".repeat(ObjectKeys.MAX_KEY_BYTES);
    for (String key : List.of("", tooLong, prefix + "lone\uD800surrogate")) {
      ByteBuf data = Unpooled.wrappedBuffer(new byte[1]);
      assertInvalid(failureOf(store.put(key, data)), "put " + key.length());
      assertInvalid(failureOf(store.get(key, 0, -1)), "get " + key.length());
      assertInvalid(failureOf(store.delete(List.of(key))), "delete " + key.length());
    }
  }

  // ---- concurrency and lifecycle ----

  @Test
  void concurrentPutsAllLandAndTheSameKeyHoldsOneWholeVersion() throws Exception {
    List<CompletableFuture<Void>> puts = new ArrayList<>();
    List<ByteBuf> buffers = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      ByteBuf data = Unpooled.wrappedBuffer(randomBytes(1000 + i, 100 + i));
      buffers.add(data);
      puts.add(store.put(prefix + "c/" + i, data));
    }
    List<byte[]> versions = new ArrayList<>();
    for (int v = 0; v < 16; v++) {
      byte[] version = new byte[50_000];
      Arrays.fill(version, (byte) v);
      versions.add(version);
      ByteBuf data = Unpooled.wrappedBuffer(version);
      buffers.add(data);
      puts.add(store.put(prefix + "same", data));
    }
    await(CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)));
    buffers.forEach(ByteBuf::release);
    for (int i = 0; i < 64; i++) {
      assertThat(getBytes(prefix + "c/" + i, 0, -1)).isEqualTo(randomBytes(1000 + i, 100 + i));
    }
    byte[] winner = getBytes(prefix + "same", 0, -1);
    assertThat(versions)
        .as("one put's bytes, whole")
        .anySatisfy(v -> assertThat(v).isEqualTo(winner));
  }

  @Test
  void operationsAfterCloseFail() throws Exception {
    put(prefix + "before-close", new byte[1]);
    store.close();
    Throwable failure = failureOf(store.get(prefix + "before-close", 0, -1));
    assertThat(failure).isInstanceOf(ObjectStoreException.class);
    assertThat(((ObjectStoreException) failure).kind()).isEqualTo(ObjectStoreException.Kind.CLOSED);
    assertThat(failureOf(store.list(prefix))).isInstanceOf(ObjectStoreException.class);
  }

  // ---- helpers ----

  protected void put(String key, byte[] data) throws Exception {
    ByteBuf buf = Unpooled.wrappedBuffer(data);
    try {
      await(store.put(key, buf));
    } finally {
      buf.release();
    }
  }

  /** Puts every key at once, as the engine would, with {@code content.apply(key)} as its bytes. */
  protected void putAll(List<String> keys, Function<String, byte[]> content) throws Exception {
    List<CompletableFuture<Void>> puts = new ArrayList<>();
    List<ByteBuf> buffers = new ArrayList<>();
    for (String key : keys) {
      ByteBuf buf = Unpooled.wrappedBuffer(content.apply(key));
      buffers.add(buf);
      puts.add(store.put(key, buf));
    }
    try {
      await(CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)));
    } finally {
      buffers.forEach(ByteBuf::release);
    }
  }

  protected byte[] getBytes(String key, long start, long end) throws Exception {
    ByteBuf buf = await(store.get(key, start, end));
    try {
      return ByteBufUtil.getBytes(buf);
    } finally {
      buf.release();
    }
  }

  protected static <T> T await(CompletableFuture<T> future) throws Exception {
    try {
      return future.get(OPERATION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within " + OPERATION_TIMEOUT, e);
    }
  }

  /** The exception {@code future} fails with; fails the test if it succeeds. */
  protected static Throwable failureOf(CompletableFuture<?> future) throws Exception {
    try {
      Object value = future.get(OPERATION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (value instanceof ByteBuf buf) {
        buf.release();
      }
      throw new AssertionError("expected a failure, got " + value);
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  protected static byte[] randomBytes(int size, long seed) {
    byte[] data = new byte[size];
    new Random(seed).nextBytes(data);
    return data;
  }

  /** 0, 1 or 2 bytes, from the number a key ends with. */
  private static int sizeOf(String key) {
    return Integer.parseInt(key.substring(key.length() - 5)) % 3;
  }

  private static void assertInvalid(Throwable failure, String what) {
    assertThat(failure).as(what).isInstanceOf(ObjectStoreException.class);
    assertThat(((ObjectStoreException) failure).kind())
        .as(what)
        .isEqualTo(ObjectStoreException.Kind.INVALID_ARGUMENT);
  }
}
