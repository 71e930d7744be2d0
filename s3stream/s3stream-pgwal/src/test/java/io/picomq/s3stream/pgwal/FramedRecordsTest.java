package io.picomq.s3stream.pgwal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.wal.RecoveredRecord;
import io.picomq.s3stream.wal.TestRecords;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FramedRecordsTest {

  private final Random random = new Random(5);
  private final List<ByteBuf> bodies =
      List.of(
          TestRecords.body(random, 1, 0, 100),
          TestRecords.body(random, 2, 0, 0),
          TestRecords.body(random, 3, 0, 3000));
  private final List<RecoveredRecord> records = new ArrayList<>();

  @AfterEach
  void release() {
    bodies.forEach(ByteBuf::release);
    records.forEach(r -> r.body().release());
  }

  @Test
  void recordsComeBackWithTheirOffsetsAndBytes() {
    long start = 1_000;
    byte[] framed = FramedRecords.encode(start, bodies);
    long end = start + framed.length;
    assertThat(FramedRecords.decode(start, end, framed, -1, records)).isEmpty();
    long offset = start;
    for (int i = 0; i < bodies.size(); i++) {
      assertThat(records.get(i).offset()).isEqualTo(offset);
      assertThat(TestRecords.bytes(records.get(i).body()))
          .isEqualTo(TestRecords.bytes(bodies.get(i)));
      offset += 24 + bodies.get(i).readableBytes();
    }
    assertThat(offset).isEqualTo(end);
  }

  @Test
  void recordsAtOrBelowTheTrimAreLeftOut() {
    byte[] framed = FramedRecords.encode(0, bodies);
    long second = 24 + bodies.get(0).readableBytes();
    assertThat(FramedRecords.decode(0, framed.length, framed, second, records)).isEmpty();
    long third = second + 24 + bodies.get(1).readableBytes();
    assertThat(records).extracting(RecoveredRecord::offset).containsExactly(third);
  }

  @Test
  void aDamagedByteStopsReadingAfterTheRecordsBeforeIt() {
    byte[] framed = FramedRecords.encode(0, bodies);
    int inThirdBody = framed.length - 10;
    framed[inThirdBody] ^= 0x01;
    Optional<String> stopped = FramedRecords.decode(0, framed.length, framed, -1, records);
    assertThat(stopped).hasValueSatisfying(why -> assertThat(why).contains("CRC"));
    assertThat(records).hasSize(2);
  }

  @Test
  void aRowWhoseRecordsDoNotReachItsEndIsReported() {
    byte[] framed = FramedRecords.encode(0, bodies);
    assertThat(FramedRecords.decode(0, framed.length + 1, framed, -1, records))
        .hasValueSatisfying(why -> assertThat(why).contains("holds records up to"));
    assertThat(FramedRecords.decode(7, 7 + framed.length, framed, -1, new ArrayList<>()))
        .hasValueSatisfying(why -> assertThat(why).contains("claims offset 0"));
  }
}
