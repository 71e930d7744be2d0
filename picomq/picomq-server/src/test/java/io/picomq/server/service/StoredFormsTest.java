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
import io.picomq.server.stream.Expiry;
import io.picomq.server.stream.NewRecord;
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
              Map.of("p" + i, new ProducerState(random.nextInt(5), random.nextInt(99))));
      assertThat(Registration.decode(entry.encode())).as("seed %d", seed).isEqualTo(entry);
    }
    byte[] unknownVersion = {9, 0, 0};
    assertThatThrownBy(() -> Registration.decode(unknownVersion))
        .isInstanceOf(IllegalStateException.class);
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
}
