package io.picomq.s3stream.conformance.upstream;

import static io.picomq.s3stream.conformance.upstream.CodecVectors.hex;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.walobject.WalObjectCodec;
import io.picomq.s3stream.walobject.WalObjectHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** upstream/wal_object/headers.json: v0 and v1 WAL object headers, both directions. */
class WalObjectHeaderVectorsTest {

  private static List<JsonNode> headers() {
    List<JsonNode> entries = new ArrayList<>();
    CodecVectors.json(CodecVectors.folder("wal_object").resolve("headers.json"))
        .forEach(entries::add);
    return entries;
  }

  private static WalObjectHeader inputOf(JsonNode entry) {
    long start = entry.get("start_offset").asLong();
    long length = entry.get("length").asLong();
    long sticky = entry.get("sticky_record_length").asLong();
    int nodeId = entry.get("node_id").asInt();
    long epoch = entry.get("epoch").asLong();
    return switch (entry.get("version").asInt()) {
      case 0 -> new WalObjectHeader.V0(start, length, sticky, nodeId, epoch);
      case 1 ->
          new WalObjectHeader.V1(
              start, length, sticky, nodeId, epoch, entry.get("trim_offset").asLong());
      default -> throw new AssertionError("unknown header version in vectors: " + entry);
    };
  }

  @Test
  void bothVersionsArePinned() {
    assertThat(headers()).extracting(e -> e.get("version").asInt()).contains(0, 1);
  }

  @TestFactory
  Stream<DynamicTest> everyHeader() {
    return headers().stream()
        .map(
            entry ->
                DynamicTest.dynamicTest(
                    "v" + entry.get("version").asInt(),
                    () -> {
                      WalObjectHeader input = inputOf(entry);
                      ByteBuf ours = Unpooled.buffer();
                      WalObjectCodec.writeHeader(input, ours);
                      assertThat(hex(CodecVectors.drain(ours)))
                          .isEqualTo(entry.get("bytes_hex").asText());

                      byte[] theirs = hex(entry.get("bytes_hex").asText());
                      assertThat(theirs).hasSize(input.size());
                      assertThat(WalObjectCodec.readHeader(Unpooled.wrappedBuffer(theirs), 0))
                          .isEqualTo(input);
                    }));
  }
}
