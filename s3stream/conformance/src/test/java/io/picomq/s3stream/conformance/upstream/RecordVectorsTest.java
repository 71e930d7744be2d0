package io.picomq.s3stream.conformance.upstream;

import static io.picomq.s3stream.conformance.upstream.CodecVectors.drain;
import static io.picomq.s3stream.conformance.upstream.CodecVectors.hex;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.codec.RecordBatchHeader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** upstream/record: record batches, decoded from their bytes and encoded from their inputs. */
class RecordVectorsTest {

  private static Path folder() {
    return CodecVectors.folder("record");
  }

  private static List<JsonNode> manifest() {
    List<JsonNode> entries = new ArrayList<>();
    CodecVectors.json(folder().resolve("manifest.json")).forEach(entries::add);
    return entries;
  }

  private static RecordBatch inputOf(JsonNode entry) {
    return new RecordBatch(
        entry.get("stream_id").asLong(),
        entry.get("epoch").asLong(),
        entry.get("base_offset").asLong(),
        entry.get("count").asInt(),
        Unpooled.wrappedBuffer(hex(entry.get("payload_hex").asText())));
  }

  @Test
  void everyBinaryHasAManifestEntry() {
    List<String> named =
        manifest().stream().map(e -> e.get("name").asText() + ".bin").sorted().toList();
    assertThat(CodecVectors.files(folder(), ".bin")).isEqualTo(named).isNotEmpty();
  }

  @TestFactory
  Stream<DynamicTest> encodingTheInputsGivesTheUpstreamBytes() {
    return manifest().stream()
        .map(
            entry ->
                DynamicTest.dynamicTest(
                    entry.get("name").asText(),
                    () -> {
                      byte[] expected =
                          CodecVectors.read(folder().resolve(entry.get("name").asText() + ".bin"));
                      byte[] ours =
                          drain(RecordBatchCodec.encode(inputOf(entry), Unpooled.buffer().alloc()));
                      assertThat(hex(ours)).isEqualTo(hex(expected));
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
                      ByteBuf bytes =
                          Unpooled.wrappedBuffer(
                              CodecVectors.read(
                                  folder().resolve(entry.get("name").asText() + ".bin")));
                      RecordBatchHeader header = RecordBatchCodec.readHeader(bytes, 0);
                      RecordBatch decoded = RecordBatchCodec.decode(bytes);
                      assertThat(decoded).isEqualTo(inputOf(entry));
                      assertThat(decoded.lastOffset()).isEqualTo(entry.get("last_offset").asLong());
                      assertThat(decoded.payloadLength()).isEqualTo(entry.get("size").asInt());
                      assertThat(header.lastOffset()).isEqualTo(entry.get("last_offset").asLong());
                      assertThat(header.encodedSize()).isEqualTo(bytes.writerIndex());
                      assertThat(bytes.isReadable()).isFalse();
                      decoded.release();
                    }));
  }
}
