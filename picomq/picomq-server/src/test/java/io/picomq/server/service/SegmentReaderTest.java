package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.Stream;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.Expiry;
import io.picomq.stream.NewRecord;
import io.picomq.stream.StreamRecord;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads through an entry's segments on a real engine: a fork's records below its fork point come
 * from the source's engine stream at the source's offsets, its own from its own stream, and the
 * caps cut a read between records but always return the first.
 */
class SegmentReaderTest {
  @TempDir Path dir;

  @Test
  void aForkReadsItsSourcesSegmentThenItsOwnWithinTheCaps() throws Exception {
    try (NodeFixture node =
        new NodeFixture("sqlite:" + dir.resolve("meta.db"), dir, 1, Clock.systemUTC())) {
      ServiceFailures failures =
          new ServiceFailures(node.plane, node.engine, Duration.ofSeconds(10));
      Stream source = open(node, failures);
      append(source, failures, "a", "b", "c");
      append(source, failures, "d");
      Stream own = open(node, failures);
      append(own, failures, "x", "y");
      // The fork branched at seq 2 of the source: A B from the source, then x y as seqs 2, 3.
      List<Segment> segments = Forks.segments(entry(source.streamId()), 2, own.streamId());
      assertThat(segments)
          .containsExactly(
              new Segment(source.streamId(), 0, 2, 0),
              new Segment(own.streamId(), 2, Segment.OPEN_END, 0));
      Registration fork = entry(own.streamId(), segments);
      SegmentReader reader = new SegmentReader(new EngineStreams(node.engine, failures), failures);

      assertThat(bodies(reader.read(fork, 0, 4, 100, Long.MAX_VALUE)))
          .containsExactly("a", "b", "x", "y");
      assertThat(reader.read(fork, 1, 4, 100, Long.MAX_VALUE))
          .extracting(StreamRecord::seq)
          .containsExactly(1L, 2L, 3L);
      assertThat(bodies(reader.read(fork, 0, 4, 3, Long.MAX_VALUE))).containsExactly("a", "b", "x");
      // Two bytes fit two one-byte bodies; a cap below the first record still returns it.
      assertThat(bodies(reader.read(fork, 1, 4, 100, 2))).containsExactly("b", "x");
      assertThat(bodies(reader.read(fork, 3, 4, 100, 0))).containsExactly("y");
      assertThat(reader.record(fork, 2).body()).isEqualTo("x".getBytes(UTF_8));
    }
  }

  @Test
  void theSegmentOfASeqIsTheLastStartingAtOrBelowIt() {
    Registration fork =
        entry(
            9,
            List.of(
                new Segment(7, 0, 2, 0),
                new Segment(8, 2, 5, 10),
                new Segment(9, 5, Segment.OPEN_END, 0)));
    assertThat(SegmentReader.segmentOf(fork, 0).streamId()).isEqualTo(7);
    assertThat(SegmentReader.segmentOf(fork, 1).streamId()).isEqualTo(7);
    assertThat(SegmentReader.segmentOf(fork, 2).streamId()).isEqualTo(8);
    assertThat(SegmentReader.segmentOf(fork, 2).offsetOf(3)).isEqualTo(11);
    assertThat(SegmentReader.segmentOf(fork, 5).streamId()).isEqualTo(9);
    assertThat(SegmentReader.segmentOf(fork, 1_000).offsetOf(1_000)).isEqualTo(995);
  }

  private static Stream open(NodeFixture node, ServiceFailures failures) {
    Outcome.StreamsCreated created =
        (Outcome.StreamsCreated)
            failures.await(node.plane.proposeAccepted(new Command.CreateStream()));
    return failures.await(node.engine.openStream(created.firstStreamId()));
  }

  private static void append(Stream stream, ServiceFailures failures, String... bodies) {
    List<NewRecord> records =
        java.util.Arrays.stream(bodies).map(body -> NewRecord.of(body.getBytes(UTF_8))).toList();
    ByteBuf payload = RecordBatchPayload.encode(records, 1_000, PooledByteBufAllocator.DEFAULT);
    try {
      assertThat(failures.await(stream.append(records.size(), payload)))
          .isInstanceOf(AppendOutcome.Appended.class);
    } finally {
      payload.release();
    }
  }

  private static Registration entry(long streamId) {
    return entry(streamId, List.of(new Segment(streamId, 0, Segment.OPEN_END, 0)));
  }

  private static Registration entry(long streamId, List<Segment> segments) {
    return new Registration(
        streamId,
        "text/plain",
        Expiry.NEVER,
        0,
        false,
        false,
        0,
        0,
        Optional.empty(),
        segments,
        Optional.empty(),
        Map.of(),
        0);
  }

  private static List<String> bodies(List<StreamRecord> records) {
    return records.stream().map(record -> new String(record.body(), UTF_8)).toList();
  }
}
