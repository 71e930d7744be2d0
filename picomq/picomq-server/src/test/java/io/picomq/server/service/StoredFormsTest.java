package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.picomq.protocol.Envelope;
import io.picomq.server.service.Registration.ForkOrigin;
import io.picomq.server.service.Registration.ProducerState;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.Expiry;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ProducerTag;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The two forms the service stores: registry entries in the KV, record batches in the engine. */
class StoredFormsTest {

  @Test
  void registryEntriesSurviveTheirEncoding() {
    long seed = Long.getLong("picomq.seed", new Random().nextLong());
    Random random = new Random(seed);
    for (int i = 0; i < 200; i++) {
      Expiry expiry =
          switch (random.nextInt(3)) {
            case 0 -> Expiry.NEVER;
            case 1 -> new Expiry.Ttl(random.nextInt(100_000));
            default -> new Expiry.At(Instant.ofEpochSecond(random.nextInt(1 << 30), 123));
          };
      Registration entry =
          new Registration(
              random.nextLong(1 << 40),
              "text/plain; charset=" + random.nextInt(9),
              expiry,
              random.nextLong(1L << 45),
              random.nextBoolean(),
              random.nextBoolean(),
              random.nextInt(1000),
              random.nextInt(5),
              random.nextBoolean()
                  ? Optional.of(new ForkOrigin("/src/" + i, random.nextInt(99), random.nextInt(9)))
                  : Optional.empty(),
              List.of(
                  new Segment(3, 0, 7, 0), new Segment(9, 7, Segment.OPEN_END, random.nextInt(3))),
              random.nextBoolean() ? Optional.of("w\uD83D\uDE00" + i) : Optional.empty(),
              Map.of("p" + i, new ProducerState(random.nextInt(5), random.nextInt(99))),
              random.nextInt(1000));
      if (random.nextBoolean()) {
        entry = entry.withTailTimestamp(random.nextLong(1L << 45));
      }
      assertThat(Registration.decode(entry.encode())).as("seed %d", seed).isEqualTo(entry);
    }
    byte[] unknownVersion = {9, 0, 0};
    assertThatThrownBy(() -> Registration.decode(unknownVersion))
        .isInstanceOf(IllegalStateException.class);
  }

  /**
   * The tail timestamp is a trailer of version 2: an entry without it is byte for byte what nodes
   * before it wrote (so they read each other's entries in a rolling upgrade), and it holds only at
   * the position it was written with.
   */
  @Test
  void theTailTimestampIsAnOptionalTrailerBoundToItsPosition() {
    Registration entry =
        new Registration(
            7,
            "text/plain",
            Expiry.NEVER,
            1_000,
            false,
            false,
            0,
            0,
            Optional.empty(),
            List.of(new Segment(7, 0, Segment.OPEN_END, 0)),
            Optional.empty(),
            Map.of(),
            12);
    Registration stamped = entry.withTailTimestamp(5_000);
    byte[] without = entry.encode();
    byte[] with = stamped.encode();
    assertThat(with).hasSize(without.length + Long.BYTES).startsWith(without);
    assertThat(Registration.decode(without).tailTimestampAt(12)).isEmpty();
    assertThat(Registration.decode(with).tailTimestampAt(12)).contains(5_000L);
    assertThat(stamped.tailTimestampAt(13)).isEmpty();
    assertThat(stamped.withStampedThrough(13).tailTimestampAt(13)).isEmpty();
    assertThat(stamped.withStampedThrough(12)).isEqualTo(stamped);
  }

  @Test
  void aBatchPayloadHoldsEachRecordsEnvelope() {
    ResourceLeakDetector.Level before = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    try {
      List<NewRecord> records =
          List.of(
              new NewRecord(Map.of("k", "v"), "one".getBytes(UTF_8)),
              NewRecord.of(new byte[0]),
              NewRecord.of("three".getBytes(UTF_8)));
      ByteBuf payload = RecordBatchPayload.encode(records, 42, PooledByteBufAllocator.DEFAULT);
      try {
        List<Envelope> decoded = RecordBatchPayload.decode(payload, 3);
        assertThat(decoded).extracting(Envelope::timestampMillis).containsOnly(42L);
        assertThat(decoded.get(0).headers()).containsExactly(Map.entry("k", "v"));
        assertThat(decoded)
            .extracting(e -> new String(e.body(), UTF_8))
            .containsExactly("one", "", "three");
        assertThatThrownBy(() -> RecordBatchPayload.decode(payload, 4))
            .isInstanceOf(IllegalStateException.class);
        ByteBuf truncated = payload.slice(0, payload.readableBytes() - 2);
        assertThatThrownBy(() -> RecordBatchPayload.decode(truncated, 3))
            .isInstanceOf(IllegalStateException.class);
      } finally {
        payload.release();
      }
    } finally {
      ResourceLeakDetector.setLevel(before);
    }
  }

  @Test
  void aBatchStampTrailsTheRecordsAndReadersDoNotSeeIt() {
    List<NewRecord> records =
        List.of(NewRecord.of("a".getBytes(UTF_8)), NewRecord.of("b".getBytes(UTF_8)));
    List<BatchStamp> stamps =
        List.of(
            new BatchStamp(Optional.empty(), Optional.empty(), false),
            new BatchStamp(Optional.of(new ProducerTag("p\u00e9", 3, 7)), Optional.empty(), false),
            new BatchStamp(Optional.empty(), Optional.of("w-0001"), true),
            new BatchStamp(Optional.of(new ProducerTag("q", 0, 0)), Optional.of("z"), true));
    for (BatchStamp stamp : stamps) {
      ByteBuf payload =
          RecordBatchPayload.encode(records, 5, stamp, PooledByteBufAllocator.DEFAULT);
      try {
        assertThat(RecordBatchPayload.decode(payload, 2))
            .extracting(e -> new String(e.body(), UTF_8))
            .containsExactly("a", "b");
        assertThat(RecordBatchPayload.stamp(payload, 2)).isEqualTo(stamp);
        ByteBuf cut = payload.slice(0, payload.readableBytes() - 1);
        if (!stamp.isEmpty()) {
          assertThatThrownBy(() -> RecordBatchPayload.stamp(cut, 2))
              .isInstanceOf(IllegalStateException.class);
        }
      } finally {
        payload.release();
      }
    }
  }

  @Test
  void aVersionOneEntryDecodesWithEverythingToReplay() {
    Registration entry =
        new Registration(
            7,
            "text/plain",
            Expiry.NEVER,
            1,
            false,
            false,
            0,
            0,
            Optional.empty(),
            List.of(new Segment(7, 0, Segment.OPEN_END, 0)),
            Optional.empty(),
            Map.of(),
            42);
    byte[] v2 = entry.encode();
    byte[] v1 = java.util.Arrays.copyOf(v2, v2.length - 8);
    v1[0] = 1;
    assertThat(Registration.decode(v1)).isEqualTo(entry.withStampedThrough(0));
  }
}
