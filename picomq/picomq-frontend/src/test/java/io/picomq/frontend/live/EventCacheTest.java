package io.picomq.frontend.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class EventCacheTest {

  private final EventCache cache = new EventCache();
  private final AtomicInteger encodes = new AtomicInteger();

  private Supplier<byte[]> encoding(int bytes) {
    return () -> {
      encodes.incrementAndGet();
      return new byte[bytes];
    };
  }

  @Test
  void readersOfOneEventShareOneEncoding() {
    byte[] first = cache.get(7, 10, 20, encoding(100));
    for (int reader = 0; reader < 1_000; reader++) {
      assertThat(cache.get(7, 10, 20, encoding(100))).isSameAs(first);
    }
    assertThat(encodes).hasValue(1);
  }

  @Test
  void anotherRangeOrIncarnationIsAnotherEvent() {
    cache.get(7, 10, 20, encoding(100));
    cache.get(7, 10, 21, encoding(100));
    cache.get(8, 10, 20, encoding(100));
    assertThat(encodes).hasValue(3);
  }

  @Test
  void anEventOver64KibIsEncodedForEachReader() {
    cache.get(7, 0, 1, encoding((64 << 10) + 1));
    cache.get(7, 0, 1, encoding((64 << 10) + 1));
    assertThat(encodes).hasValue(2);
  }

  @Test
  void aFullCacheKeepsTheNewestEventsInsteadOfStartingOver() {
    int eventBytes = 1024;
    int events = (16 << 20) / eventBytes + 100; // past the 16 MiB bound
    for (int seq = 0; seq < events; seq++) {
      cache.get(7, seq, seq + 1, encoding(eventBytes));
      cache.get(7, seq, seq + 1, encoding(eventBytes)); // a second live reader
    }
    assertThat(encodes).hasValue(events);
    for (int seq = events - 10; seq < events; seq++) {
      cache.get(7, seq, seq + 1, encoding(eventBytes));
    }
    assertThat(encodes).as("the newest events are still shared").hasValue(events);
  }
}
