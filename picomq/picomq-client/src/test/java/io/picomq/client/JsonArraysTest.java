package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonArraysTest {

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> split(String json) {
    return JsonArrays.split(utf8(json)).stream()
        .map(b -> new String(b, StandardCharsets.UTF_8))
        .toList();
  }

  @Test
  void elementsKeepTheirExactBytes() {
    assertThat(split("[{\"a\": 1} , \"two\",3,[4, 5],null,  true ,\"é\\\"\"]"))
        .containsExactly("{\"a\": 1}", "\"two\"", "3", "[4, 5]", "null", "true", "\"é\\\"\"");
  }

  @Test
  void emptyBodiesAndArraysHaveNoMessages() {
    assertThat(split("")).isEmpty();
    assertThat(split("[]")).isEmpty();
    assertThat(split(" [ ] ")).isEmpty();
  }

  @Test
  void joinThenSplitGivesTheMessagesBack() {
    List<byte[]> messages = List.of(utf8("{\"n\":1}"), utf8("[1,2]"), utf8("\"x\""));
    assertThat(JsonArrays.split(JsonArrays.join(messages)))
        .usingElementComparator(java.util.Arrays::compare)
        .containsExactlyElementsOf(messages);
  }

  @Test
  void otherJsonIsRefused() {
    assertThatThrownBy(() -> split("{\"a\":1}")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> split("[1, 2")).isInstanceOf(IllegalArgumentException.class);
  }
}
