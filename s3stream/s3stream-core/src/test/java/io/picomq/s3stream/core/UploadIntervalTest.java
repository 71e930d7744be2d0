package io.picomq.s3stream.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.core.testing.EngineStorage;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.core.testing.TestEngine;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** With an upload interval, a block far below the threshold is still uploaded and committed. */
class UploadIntervalTest {

  private final EngineStorage storage = EngineStorage.memoryWal();
  private final InMemoryMetadata metadata = new InMemoryMetadata();
  private TestEngine engine;

  @AfterEach
  void close() {
    engine.shutdown();
    storage.close();
  }

  private void start(long intervalMillis) throws Exception {
    engine =
        storage.engine(metadata.register(1, 1), c -> c.walUploadIntervalMillis(intervalMillis));
    engine.engine.start().get(10, TimeUnit.SECONDS);
  }

  private static void appendOne(Stream stream) throws Exception {
    ByteBuf payload = Unpooled.wrappedBuffer(new byte[100]);
    try {
      assertThat(stream.append(1, payload).get(10, TimeUnit.SECONDS))
          .isInstanceOf(AppendOutcome.Appended.class);
    } finally {
      payload.release();
    }
  }

  @Test
  void aSmallBlockIsCommittedOnTheInterval() throws Exception {
    start(50);
    long id = metadata.createStream();
    Stream stream = engine.engine.openStream(id).get();
    appendOne(stream);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (metadata.stream(id).endOffset() < 1 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(metadata.stream(id).endOffset()).isEqualTo(1);
    assertThat(stream.confirmOffset()).isEqualTo(1);
  }

  @Test
  void withoutAnIntervalASmallBlockWaitsForTheThreshold() throws Exception {
    start(0);
    long id = metadata.createStream();
    Stream stream = engine.engine.openStream(id).get();
    appendOne(stream);
    appendOne(stream);
    assertThat(metadata.stream(id).endOffset()).isZero();
    assertThat(metadata.commits()).isEmpty();
  }
}
