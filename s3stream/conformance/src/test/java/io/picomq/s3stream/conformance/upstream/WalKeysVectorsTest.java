package io.picomq.s3stream.conformance.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.s3stream.walobject.WalObjectKey;
import io.picomq.s3stream.walobject.WalObjectKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** upstream/keys/wal_prefixes.json: WAL node prefixes and object keys. */
class WalKeysVectorsTest {

  // The upstream generator's fixed path inputs, the same for every node (visible in each path).
  private static final long EPOCH = 3;
  private static final long START = 8192;
  private static final long END = 12288;

  private static List<JsonNode> prefixes() {
    List<JsonNode> entries = new ArrayList<>();
    CodecVectors.json(CodecVectors.folder("keys").resolve("wal_prefixes.json"))
        .forEach(entries::add);
    return entries;
  }

  @Test
  void theNamespaceIsKafkas() {
    assertThat(prefixes())
        .isNotEmpty()
        .allSatisfy(
            e ->
                assertThat(e.get("prefix").asText())
                    .contains("/" + WalObjectKeys.NAMESPACE + e.get("cluster_id").asText() + "/"));
  }

  @TestFactory
  Stream<DynamicTest> everyNode() {
    return prefixes().stream()
        .map(
            entry ->
                DynamicTest.dynamicTest(
                    entry.get("cluster_id").asText() + "/" + entry.get("node_id").asInt(),
                    () -> {
                      String prefix =
                          WalObjectKeys.nodePrefix(
                              entry.get("cluster_id").asText(), entry.get("node_id").asInt());
                      assertThat(prefix).isEqualTo(entry.get("prefix").asText());

                      String v0 = entry.get("path_v0").asText();
                      String v1 = entry.get("path_v1").asText();
                      assertThat(WalObjectKeys.keyV0(prefix, EPOCH, START)).isEqualTo(v0);
                      assertThat(WalObjectKeys.keyV1(prefix, EPOCH, START, END)).isEqualTo(v1);
                      assertThat(WalObjectKeys.parse(prefix, v0))
                          .contains(new WalObjectKey.V0(v0, EPOCH, START));
                      assertThat(WalObjectKeys.parse(prefix, v1))
                          .contains(new WalObjectKey.V1(v1, EPOCH, START, END));
                    }));
  }
}
