package io.picomq.s3stream.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.core.testing.EngineStorage;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.core.testing.StreamReads;
import io.picomq.s3stream.core.testing.TestEngine;
import io.picomq.s3stream.wal.WalFencedException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two processes of the same node with different epochs: once the newer one started and opened a
 * stream, nothing the older one writes ever becomes visible (in the metadata, or to readers of the
 * newer one), and the older one learns it is fenced.
 */
class FencingTest {

  private EngineStorage storage;
  private final InMemoryMetadata metadata = new InMemoryMetadata();
  private final List<TestEngine> engines = new ArrayList<>();

  @AfterEach
  void close() {
    for (TestEngine engine : engines) {
      try {
        engine.shutdown();
      } catch (AssertionError fencedEnginesMayNotFlush) {
        // expected for the older process
      }
    }
    storage.close();
  }

  private TestEngine start(long epoch) throws Exception {
    TestEngine engine = storage.engine(metadata.register(1, epoch), c -> c);
    engines.add(engine);
    engine.engine.start().get(30, TimeUnit.SECONDS);
    return engine;
  }

  private static AppendOutcome append(Stream stream, String text) throws Exception {
    ByteBuf payload = Unpooled.copiedBuffer(text + "|", StandardCharsets.ISO_8859_1);
    try {
      return stream.append(1, payload).get(30, TimeUnit.SECONDS);
    } finally {
      payload.release();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"object WAL", "memory WAL"})
  void theOlderProcessNeverMakesAWriteVisibleAfterTheNewerOpened(String wal) throws Exception {
    storage = wal.equals("object WAL") ? EngineStorage.memoryStore() : EngineStorage.memoryWal();
    long id = metadata.createStream();
    TestEngine older = start(1);
    Stream olderStream = older.engine.openStream(id).get();
    for (int i = 0; i < 5; i++) {
      assertThat(append(olderStream, "old-" + i)).isInstanceOf(AppendOutcome.Appended.class);
    }

    TestEngine newer = start(2); // recovers the older one's acknowledged records, closes the stream
    Stream newerStream = newer.engine.openStream(id).get();
    assertThat(newerStream.epoch()).isGreaterThan(olderStream.epoch());
    assertThat(append(newerStream, "new-0")).isInstanceOf(AppendOutcome.Appended.class);

    // The older process keeps trying. Its WAL acknowledges nothing more: the memory WAL sees the
    // takeover at once, the object WAL's fence check (wal.md, Fencing) before each acknowledgement
    // finds the newer epoch's fence marker. Nothing it writes is ever committed.
    List<AppendOutcome> late = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      late.add(append(olderStream, "zombie-" + i));
    }
    assertThat(late).allMatch(o -> o instanceof AppendOutcome.Fenced);
    // The memory WAL refused the late appends up front, so the close reaches the metadata plane and
    // is rejected there; the object WAL stored one and failed it, so the close's flush fails
    // fenced.
    assertThatThrownBy(() -> olderStream.close().get(30, TimeUnit.SECONDS))
        .satisfies(
            e ->
                assertThat(e.getCause())
                    .isInstanceOfAny(MetadataRejectedException.class, WalFencedException.class));
    assertThat(append(olderStream, "after-fence")).isInstanceOf(AppendOutcome.Fenced.class);
    assertThatThrownBy(() -> older.engine.openStream(metadata.createStream()).get())
        .hasCauseInstanceOf(MetadataRejectedException.class);

    // What the newer process and the metadata plane see: the old records, then its own, nothing
    // written by the older process after the takeover.
    newerStream.close().get(30, TimeUnit.SECONDS);
    assertThat(metadata.stream(id).endOffset()).isEqualTo(6);
    Stream reader = newer.engine.openStream(id).get();
    assertThat(StreamReads.readAll(reader, 0, 6, 1 << 20))
        .extracting(StreamReads::readBatchId)
        .containsExactly("old-0", "old-1", "old-2", "old-3", "old-4", "new-0");
  }
}
