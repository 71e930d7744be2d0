package io.picomq.s3stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The facade assembles a working engine from a config, storage URIs and the host's managers. */
class S3StreamTest {

  @TempDir Path directory;

  private final InMemoryMetadata metadata = new InMemoryMetadata();

  private S3Stream.Builder builder(long epoch, String storage) {
    InMemoryMetadata.Node node = metadata.register(1, epoch);
    return S3Stream.builder()
        .config(
            EngineConfig.builder().nodeId(1).nodeEpoch(epoch).walCacheSizeBytes(4 << 20).build())
        .storage(storage)
        .streamManager(node)
        .objectManager(node);
  }

  private static AppendOutcome append(Stream stream, String text) throws Exception {
    ByteBuf payload = Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
    try {
      return stream.append(1, payload).get(30, TimeUnit.SECONDS);
    } finally {
      payload.release();
    }
  }

  private static String read(Stream stream, long offset) throws Exception {
    try (FetchResult result =
        stream.fetch(offset, offset + 1, 1 << 20, ReadOptions.DEFAULT).get(30, TimeUnit.SECONDS)) {
      return result.batches().get(0).payload().toString(StandardCharsets.UTF_8);
    }
  }

  @Test
  void aSettingMadeTwiceIsRejected() {
    assertThatThrownBy(() -> S3Stream.builder().storage("0@memory://a").storage("0@memory://b"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("storage");
  }

  @Test
  void requiredPartsAreNamedWhenMissing() {
    assertThatThrownBy(() -> S3Stream.builder().storage("0@memory://a").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("config");
  }

  @Test
  void aMalformedStorageUriIsRejected() {
    assertThatThrownBy(() -> builder(1, "memory://no-bucket-id").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bucket id");
  }

  @Test
  void anEngineOnFileStorageKeepsRecordsAcrossProcesses() throws Exception {
    String storage = "0@file://" + directory.resolve("data");
    long id = metadata.createStream();
    StreamEngine first = builder(1, storage).build();
    first.start().get(30, TimeUnit.SECONDS);
    Stream stream = first.openStream(id).get();
    assertThat(append(stream, "hello")).isEqualTo(new AppendOutcome.Appended(0, 1));
    assertThat(append(stream, "world")).isEqualTo(new AppendOutcome.Appended(1, 2));
    first.shutdown().get(30, TimeUnit.SECONDS);

    StreamEngine second = builder(2, storage).build();
    second.start().get(30, TimeUnit.SECONDS);
    Stream again = second.openStream(id).get();
    assertThat(read(again, 0)).isEqualTo("hello");
    assertThat(read(again, 1)).isEqualTo("world");
    second.shutdown().get(30, TimeUnit.SECONDS);
  }

  @Test
  void aSeparateWalBucketReceivesTheWalAndMetersGoToTheGivenRegistry() throws Exception {
    Path walDirectory = directory.resolve("wal");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    StreamEngine engine =
        builder(1, "0@file://" + directory.resolve("data"))
            .wal("1@file://" + walDirectory + "?batchInterval=1ms")
            .meterRegistry(registry)
            .build();
    engine.start().get(30, TimeUnit.SECONDS);
    Stream stream = engine.openStream(metadata.createStream()).get();
    append(stream, "x");
    try (var files = Files.walk(walDirectory)) {
      assertThat(files.filter(Files::isRegularFile).count()).isPositive();
    }
    assertThat(registry.get("s3stream.append.records").counter().count()).isEqualTo(1);
    assertThat(
            registry
                .get("s3stream.objectstore.requests")
                .tags("store", "wal", "op", "put", "outcome", "ok")
                .timer()
                .count())
        .isPositive();
    engine.shutdown().get(30, TimeUnit.SECONDS);
  }

  @Test
  void aWalBucketUnderTheDataBucketIdIsRejected() {
    assertThatThrownBy(() -> builder(1, "0@memory://data").wal("0@memory://wal").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bucket id");
  }
}
