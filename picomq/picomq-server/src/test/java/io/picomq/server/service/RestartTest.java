package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ProducerTag;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.StreamRecord;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node stopped without any shutdown loses no acknowledged record, and no producer state. */
class RestartTest {
  @TempDir Path dir;

  @Test
  void everyAcknowledgedRecordSurvivesAnAbruptStop() throws Exception {
    String metaUrl = "sqlite:" + dir.resolve("meta.db");
    List<String> acknowledged = new ArrayList<>();
    NodeFixture first = new NodeFixture(metaUrl, dir, 1, Clock.systemUTC());
    first.service.create("/r", CreateRequest.of("text/plain")).join();
    List<CompletableFuture<AppendVerdict>> pipelined = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      pipelined.add(first.service.append("/r", AppendRequest.of(List.of(record("r" + i)))));
    }
    for (int i = 0; i < pipelined.size(); i++) {
      assertThat(pipelined.get(i).join()).isInstanceOf(AppendVerdict.Accepted.class);
      acknowledged.add("r" + i);
    }
    assertThat(first.service.append("/r", produce(0)).join())
        .isInstanceOf(AppendVerdict.Accepted.class);
    acknowledged.add("p0");
    first.abandon();

    try (NodeFixture second = new NodeFixture(metaUrl, dir, 2, Clock.systemUTC())) {
      ReadOutcome.Batch batch =
          (ReadOutcome.Batch)
              second
                  .service
                  .read("/r", new ReadWindow(0, Integer.MAX_VALUE, Long.MAX_VALUE))
                  .join();
      assertThat(batch.records())
          .extracting(record -> new String(record.body(), UTF_8))
          .containsExactlyElementsOf(acknowledged);
      assertThat(batch.records()).extracting(StreamRecord::seq).startsWith(0L, 1L, 2L);
      // The producer's state came back with the registry entry: a retry is a duplicate.
      assertThat(second.service.append("/r", produce(0)).join())
          .isInstanceOf(AppendVerdict.Duplicate.class);
      AppendVerdict.Accepted next =
          (AppendVerdict.Accepted)
              second.service.append("/r", AppendRequest.of(List.of(record("after")))).join();
      assertThat(next.startSeq()).isEqualTo(acknowledged.size());
      assertThat(next.timestampMillis())
          .isGreaterThanOrEqualTo(batch.records().getLast().timestampMillis());
    }
  }

  @Test
  void aStreamTrimmedToItsTailLoadsAfterARestart() throws Exception {
    String metaUrl = "sqlite:" + dir.resolve("meta.db");
    long lastTimestamp;
    long streamId;
    long trimmedTo;
    try (NodeFixture first = new NodeFixture(metaUrl, dir, 1, Clock.systemUTC())) {
      first.service.create("/t", CreateRequest.of("text/plain")).join();
      lastTimestamp =
          ((AppendVerdict.Accepted)
                  first.service.append("/t", AppendRequest.of(List.of(record("a")))).join())
              .timestampMillis();
      first.service.trim("/t", 1).join();
      // The engine trims after the entry is written, in the background: wait for its effect, the
      // engine stream's start moved up to seq 1, so the restart below loads a trimmed stream.
      Registration.Segment own = registration(first, "/t").own();
      streamId = own.streamId();
      trimmedTo = own.offsetOf(1);
      assertThat(trimmedTo).isPositive();
      await("the engine trim of /t")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(first.plane.state().streams().get(own.streamId()).startOffset())
                      .isEqualTo(own.offsetOf(1)));
    }
    try (NodeFixture second = new NodeFixture(metaUrl, dir, 2, Clock.systemUTC())) {
      ReadOutcome.Batch batch =
          (ReadOutcome.Batch)
              second
                  .service
                  .read("/t", new ReadWindow(1, Integer.MAX_VALUE, Long.MAX_VALUE))
                  .join();
      assertThat(batch.records()).isEmpty();
      assertThat(batch.stream().startSeq()).isEqualTo(1);
      assertThat(second.plane.state().streams().get(streamId).startOffset()).isEqualTo(trimmedTo);
      AppendVerdict.Accepted next =
          (AppendVerdict.Accepted)
              second.service.append("/t", AppendRequest.of(List.of(record("b")))).join();
      assertThat(next.startSeq()).isEqualTo(1);
      assertThat(next.timestampMillis()).isGreaterThanOrEqualTo(lastTimestamp);
    }
  }

  private static Registration registration(NodeFixture node, String name) {
    return Registration.decode(
        node.plane.state().kvValue(Registry.key(name)).orElseThrow().toByteArray());
  }

  private static NewRecord record(String body) {
    return NewRecord.of(body.getBytes(UTF_8));
  }

  private static AppendRequest produce(long seq) {
    return new AppendRequest(
        List.of(record("p" + seq)),
        Optional.empty(),
        Optional.of(new ProducerTag("producer", 0, seq)),
        Optional.empty(),
        OptionalLong.empty(),
        false);
  }
}
