package io.picomq.s3stream.conformance.upstream;

import static io.picomq.s3stream.conformance.upstream.CodecVectors.drain;
import static io.picomq.s3stream.conformance.upstream.CodecVectors.hex;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.codec.WalRecord;
import io.picomq.s3stream.codec.WalRecordCodec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** upstream/wal_record: framed data and padding records, both directions. */
class WalRecordVectorsTest {

  private static Path folder() {
    return CodecVectors.folder("wal_record");
  }

  private static List<JsonNode> manifest() {
    List<JsonNode> entries = new ArrayList<>();
    CodecVectors.json(folder().resolve("manifest.json")).forEach(entries::add);
    return entries;
  }

  private static byte[] upstreamBytes(JsonNode entry) {
    return CodecVectors.read(folder().resolve(entry.get("name").asText() + ".bin"));
  }

  @Test
  void everyBinaryHasAManifestEntryAndEveryKindIsKnown() {
    List<String> named =
        manifest().stream().map(e -> e.get("name").asText() + ".bin").sorted().toList();
    assertThat(CodecVectors.files(folder(), ".bin")).isEqualTo(named);
    assertThat(manifest())
        .extracting(e -> e.get("kind").asText())
        .containsOnly("data", "padding")
        .contains("data", "padding");
  }

  @TestFactory
  Stream<DynamicTest> encodingTheInputsGivesTheUpstreamBytes() {
    return manifest().stream()
        .map(
            entry ->
                DynamicTest.dynamicTest(
                    entry.get("name").asText(),
                    () -> {
                      long offset = entry.get("start_offset").asLong();
                      ByteBuf ours =
                          entry.get("kind").asText().equals("data")
                              ? WalRecordCodec.encodeData(
                                  offset,
                                  Unpooled.wrappedBuffer(hex(entry.get("body_hex").asText())),
                                  Unpooled.buffer().alloc())
                              : WalRecordCodec.encodePadding(
                                  offset,
                                  entry.get("total_length").asInt(),
                                  Unpooled.buffer().alloc());
                      assertThat(hex(drain(ours))).isEqualTo(hex(upstreamBytes(entry)));
                    }));
  }

  @TestFactory
  Stream<DynamicTest> decodingTheUpstreamBytesGivesTheInputs() {
    return manifest().stream()
        .map(
            entry ->
                DynamicTest.dynamicTest(
                    entry.get("name").asText(),
                    () -> {
                      ByteBuf bytes = Unpooled.wrappedBuffer(upstreamBytes(entry));
                      WalRecord record = WalRecordCodec.decode(bytes);
                      assertThat(bytes.isReadable()).isFalse();
                      assertThat(record.header().recordOffset())
                          .isEqualTo(entry.get("start_offset").asLong());
                      if (entry.get("kind").asText().equals("data")) {
                        WalRecord.Data data = (WalRecord.Data) record;
                        assertThat(hex(drain(data.body())))
                            .isEqualTo(entry.get("body_hex").asText());
                      } else {
                        assertThat(record).isInstanceOf(WalRecord.Padding.class);
                        assertThat(record.header().recordSize())
                            .isEqualTo(entry.get("total_length").asLong());
                      }
                    }));
  }
}
