package io.picomq.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RecordFramerTest {
  private static final long SEED = Long.getLong("picomq.seed", 7);

  @Test
  void aRecordRoundTrips() {
    byte[] body = new BenchRecord(3, 42, 987_654_321L).encode(100);
    assertThat(body).hasSize(100);
    assertThat(BenchRecord.decode(body, 0)).isEqualTo(new BenchRecord(3, 42, 987_654_321L));
  }

  @Test
  void recordsCutAtArbitraryPlacesAreRecovered() {
    SplittableRandom random = new SplittableRandom(SEED);
    for (int round = 0; round < 200; round++) {
      int size = BenchRecord.HEADER_BYTES + random.nextInt(2000);
      int count = random.nextInt(50);
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      List<BenchRecord> sent = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        BenchRecord record = new BenchRecord(random.nextInt(64), i, random.nextLong());
        sent.add(record);
        all.writeBytes(record.encode(size));
      }
      byte[] bytes = all.toByteArray();
      RecordFramer framer = new RecordFramer(size);
      List<BenchRecord> received = new ArrayList<>();
      int offset = 0;
      while (offset < bytes.length) {
        int n = Math.min(bytes.length - offset, random.nextInt(3 * size));
        byte[] chunk = new byte[n];
        System.arraycopy(bytes, offset, chunk, 0, n);
        framer.feed(chunk, received::add);
        offset += n;
      }
      assertThat(received).as("seed %d round %d", SEED, round).isEqualTo(sent);
      assertThat(framer.pendingBytes()).isZero();
    }
  }

  @Test
  void bytesThatAreNotBenchRecordsAreRefused() {
    RecordFramer framer = new RecordFramer(32);
    assertThatThrownBy(() -> framer.feed(new byte[32], r -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not a bench record");
  }

  @Test
  void tooSmallARecordIsRefused() {
    assertThatThrownBy(() -> new BenchRecord(0, 0, 0).encode(BenchRecord.HEADER_BYTES - 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
