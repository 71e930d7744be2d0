package io.picomq.s3stream.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class Crc32Test {

  @Test
  void isTheStandardCheckValueWithBit31Cleared() {
    // The catalogued CRC-32/ISO-HDLC check value of "123456789" is 0xCBF43926.
    assertThat(Crc32.of("123456789".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0x4BF43926);
  }

  @Test
  void ofNothingIsZero() {
    assertThat(Crc32.of(new byte[0])).isZero();
    assertThat(Crc32.of(Unpooled.EMPTY_BUFFER)).isZero();
  }

  @Test
  void neverNegative() {
    // 0xFF * 4 has a standard CRC-32 of 0xFFFFFFFF: the mask must clear the top bit.
    byte[] ones = new byte[4];
    Arrays.fill(ones, (byte) 0xFF);
    assertThat(Crc32.of(ones)).isEqualTo(0x7FFFFFFF);
  }

  @Test
  void agreesAcrossHeapDirectAndCompositeBuffers() {
    byte[] data = new byte[10_000];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i * 31 + 7);
    }
    int expected = Crc32.of(data);
    ByteBuf direct = Unpooled.directBuffer(data.length).writeBytes(data);
    CompositeByteBuf composite = Unpooled.compositeBuffer();
    composite.addComponents(
        true,
        Unpooled.wrappedBuffer(data, 0, 3000),
        Unpooled.directBuffer().writeBytes(data, 3000, 5000),
        Unpooled.wrappedBuffer(data, 8000, 2000));
    try {
      assertThat(Crc32.of(Unpooled.wrappedBuffer(data))).isEqualTo(expected);
      assertThat(Crc32.of(direct)).isEqualTo(expected);
      assertThat(Crc32.of(composite)).isEqualTo(expected);
      assertThat(composite.readerIndex()).isZero();
    } finally {
      direct.release();
      composite.release();
    }
  }

  @Test
  void coversOnlyTheRequestedRange() {
    byte[] data = "xx123456789yy".getBytes(StandardCharsets.US_ASCII);
    assertThat(Crc32.of(Unpooled.wrappedBuffer(data), 2, 9)).isEqualTo(0x4BF43926);
  }
}
