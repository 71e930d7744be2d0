package io.picomq.s3stream.conformance.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.s3stream.object.ObjectNamespace;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** upstream/keys/object_keys.json: data object keys from object ids. */
class ObjectKeysVectorsTest {

  private static List<JsonNode> keys() {
    List<JsonNode> entries = new ArrayList<>();
    CodecVectors.json(CodecVectors.folder("keys").resolve("object_keys.json"))
        .forEach(entries::add);
    return entries;
  }

  @Test
  void theVectorsArePresent() {
    assertThat(keys()).isNotEmpty();
  }

  @TestFactory
  Stream<DynamicTest> everyKey() {
    return keys().stream()
        .map(
            entry -> {
              ObjectNamespace namespace = new ObjectNamespace(entry.get("namespace").asText());
              long objectId = entry.get("object_id").asLong();
              String key = entry.get("key").asText();
              return DynamicTest.dynamicTest(
                  key,
                  () -> {
                    assertThat(namespace.key(objectId)).isEqualTo(key);
                    assertThat(namespace.parseObjectId(key)).hasValue(objectId);
                  });
            });
  }
}
