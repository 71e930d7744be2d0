package io.picomq.s3stream.conformance.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.codec.Crc32;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** upstream/crc/known_answers.json: our CRC gives the upstream's value for every input. */
class CrcVectorsTest {

  private static List<JsonNode> answers() {
    List<JsonNode> entries = new ArrayList<>();
    CodecVectors.json(CodecVectors.folder("crc").resolve("known_answers.json"))
        .forEach(entries::add);
    return entries;
  }

  @Test
  void theVectorsIncludeTheCheckValue() {
    assertThat(answers()).extracting(e -> e.get("name").asText()).contains("check_123456789");
  }

  @TestFactory
  Stream<DynamicTest> everyKnownAnswer() {
    return answers().stream()
        .map(
            entry ->
                DynamicTest.dynamicTest(
                    entry.get("name").asText(),
                    () -> {
                      byte[] input = CodecVectors.hex(entry.get("input_hex").asText());
                      int expected = (int) entry.get("crc").asLong();
                      assertThat(Crc32.of(input)).isEqualTo(expected);
                      ByteBuf direct = Unpooled.directBuffer(Math.max(1, input.length));
                      try {
                        direct.writeBytes(input);
                        assertThat(Crc32.of(direct)).isEqualTo(expected);
                      } finally {
                        direct.release();
                      }
                    }));
  }
}
