package io.picomq.s3stream.conformance.upstream;

import static io.picomq.s3stream.conformance.upstream.CodecVectors.hex;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.walobject.NodeRangeIndex;
import io.picomq.s3stream.walobject.RangeIndexCodec;
import io.picomq.s3stream.walobject.RangeIndexEntry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** upstream/range_index: range index object keys per node and a serialized index. */
class RangeIndexVectorsTest {

  private final Path folder = CodecVectors.folder("range_index");
  private final JsonNode manifest = CodecVectors.json(folder.resolve("manifest.json"));

  private NodeRangeIndex index() {
    TreeMap<Long, List<RangeIndexEntry>> streams = new TreeMap<>();
    for (JsonNode stream : manifest.get("streams")) {
      List<RangeIndexEntry> entries = new ArrayList<>();
      for (JsonNode range : stream.get("ranges")) {
        entries.add(
            new RangeIndexEntry(
                range.get(0).asLong(), range.get(1).asLong(), range.get(2).asLong()));
      }
      streams.put(stream.get("stream_id").asLong(), entries);
    }
    return new NodeRangeIndex(streams);
  }

  @Test
  void everyIndexKey() {
    assertThat(manifest.get("index_keys")).isNotEmpty();
    for (JsonNode entry : manifest.get("index_keys")) {
      assertThat(
              RangeIndexCodec.objectKey(
                  RangeIndexCodec.DEFAULT_NAMESPACE, entry.get("node_id").asLong()))
          .as("node %d", entry.get("node_id").asLong())
          .isEqualTo(entry.get("key").asText());
    }
  }

  @Test
  void encodingTheManifestGivesTheUpstreamBytes() {
    byte[] ours = CodecVectors.drain(RangeIndexCodec.encode(index(), Unpooled.buffer().alloc()));
    assertThat(hex(ours)).isEqualTo(hex(CodecVectors.read(folder.resolve("index_v0.bin"))));
  }

  @Test
  void decodingTheUpstreamBytesGivesTheManifest() {
    NodeRangeIndex decoded =
        RangeIndexCodec.decode(
            Unpooled.wrappedBuffer(CodecVectors.read(folder.resolve("index_v0.bin"))));
    assertThat(decoded).isEqualTo(index());
  }

  @Test
  void theOnlyBinaryIsTheIndex() {
    assertThat(CodecVectors.files(folder, ".bin")).containsExactly("index_v0.bin");
  }
}
