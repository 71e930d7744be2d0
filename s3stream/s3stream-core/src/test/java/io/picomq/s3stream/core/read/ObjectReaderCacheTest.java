package io.picomq.s3stream.core.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.object.ObjectReader;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

class ObjectReaderCacheTest {

  private final MemoryObjectStore store = new MemoryObjectStore();
  private final CommittedData data = new CommittedData(store, ObjectNamespace.DEFAULT, 5);
  private final AtomicInteger opens = new AtomicInteger();

  private final LongFunction<CompletableFuture<ObjectReader>> open =
      id -> {
        opens.incrementAndGet();
        long size =
            data.catalog.getObjects(1, 0, -1, 100).join().stream()
                .filter(o -> o.objectId() == id)
                .findFirst()
                .orElseThrow()
                .sizeBytes();
        return ObjectReader.open(store, ObjectNamespace.DEFAULT, id, size);
      };

  private long commitOne() {
    return data.commit(data.append(1, 3, 100), 1024).objectId();
  }

  @Test
  void opensAnObjectOnceAndKeepsIt() {
    long id = commitOne();
    ObjectReaderCache cache = new ObjectReaderCache(4);
    assertThat(cache.getIfOpen(id)).isEmpty();
    ObjectReader first = cache.get(id, open).join();
    assertThat(cache.get(id, open).join()).isSameAs(first);
    assertThat(cache.getIfOpen(id)).containsSame(first);
    assertThat(opens).hasValue(1);
  }

  @Test
  void concurrentGetsShareOneOpen() {
    ObjectReaderCache cache = new ObjectReaderCache(4);
    CompletableFuture<ObjectReader> pending = new CompletableFuture<>();
    CompletableFuture<ObjectReader> a = cache.get(9, id -> pending);
    CompletableFuture<ObjectReader> b =
        cache.get(9, id -> CompletableFuture.failedFuture(new AssertionError()));
    assertThat(b).isSameAs(a);
    assertThat(cache.getIfOpen(9)).as("still opening").isEmpty();
    pending.completeExceptionally(new IllegalStateException("boom"));
    assertThatThrownBy(a::join).hasCauseInstanceOf(IllegalStateException.class);
    assertThat(cache.size()).as("a failed open is forgotten").isZero();
  }

  @Test
  void keepsAtMostCapacityAndTheObjectInUseThroughAScanOfOthers() {
    ObjectReader reader = cache(4).get(commitOne(), open).join();
    opens.set(0);
    LongFunction<CompletableFuture<ObjectReader>> counted =
        id -> {
          opens.incrementAndGet();
          return CompletableFuture.completedFuture(reader);
        };
    ObjectReaderCache cache = cache(8);
    long inUse = 1;
    for (long once = 100; once < 200; once++) {
      cache.get(inUse, counted).join();
      cache.get(once, counted).join();
    }
    assertThat(cache.size()).isEqualTo(8);
    assertThat(cache.getIfOpen(inUse)).isPresent();
    assertThat(cache.getIfOpen(100)).as("read once, long ago").isEmpty();
    assertThat(opens).as("the object in use was opened once").hasValue(1 + 100);
  }

  private static ObjectReaderCache cache(int capacity) {
    return new ObjectReaderCache(capacity);
  }

  @Test
  void anInvalidatedObjectIsForgottenAndOthersKept() {
    long a = commitOne();
    long b = commitOne();
    ObjectReaderCache cache = new ObjectReaderCache(4);
    cache.get(a, open).join();
    cache.get(b, open).join();
    cache.invalidate(a);
    assertThat(cache.getIfOpen(a)).isEmpty();
    assertThat(cache.getIfOpen(b)).isPresent();
    cache.get(a, open).join();
    assertThat(opens).as("a is opened afresh").hasValue(3);
  }
}
