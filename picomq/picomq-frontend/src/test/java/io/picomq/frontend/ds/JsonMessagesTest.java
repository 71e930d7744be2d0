package io.picomq.frontend.ds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class JsonMessagesTest {

  private static List<String> split(String body, boolean create) throws InvalidJson {
    return JsonMessages.split(body.getBytes(UTF_8), create).stream()
        .map(bytes -> new String(bytes, UTF_8))
        .toList();
  }

  @Test
  void flattensExactlyOneLevel() throws InvalidJson {
    assertThat(split("{\"event\": \"created\"}", false))
        .containsExactly("{\"event\": \"created\"}");
    assertThat(split("[{\"a\":1}, {\"b\":2}]", false)).containsExactly("{\"a\":1}", "{\"b\":2}");
    assertThat(split("[[1,2], [3,4]]", false)).containsExactly("[1,2]", "[3,4]");
    assertThat(split("[[[1,2,3]]]", false)).containsExactly("[[1,2,3]]");
    assertThat(split("  \"s\"  ", false)).containsExactly("\"s\"");
    assertThat(split("[ 1 ,\n\t\"two, three\" , null,true ]", false))
        .containsExactly("1", "\"two, three\"", "null", "true");
  }

  @Test
  void keepsTheClientsBytesForEachMessage() throws InvalidJson {
    assertThat(split("[1.000000000000000000001, {\"k\" :  \"\\u00e9\"}]", false))
        .containsExactly("1.000000000000000000001", "{\"k\" :  \"\\u00e9\"}");
  }

  @Test
  void anEmptyArrayCreatesButDoesNotAppend() throws InvalidJson {
    assertThat(split("[]", true)).isEmpty();
    assertThatThrownBy(() -> split("[ ]", false)).isInstanceOf(InvalidJson.class);
  }

  @Test
  void refusesWhatIsNotOneJsonValue() {
    for (String bad : new String[] {"", "   ", "{ invalid json }", "[1,2", "[1,]", "1 2", "{}{}"}) {
      assertThatThrownBy(() -> split(bad, true)).as("%s", bad).isInstanceOf(InvalidJson.class);
    }
  }

  /** Found by HostileInputTest: Jackson read this body as UTF-32 and failed with an IOException. */
  @Test
  void refusesBodiesThatAreNotUtf8() {
    byte[][] bodies = {
      {0x00, 0x00, 0x00, 0x7f, (byte) 0xff, (byte) 0xfe, 0x7f, 0x00},
      {0x5b, 0x00, 0x31, 0x00, 0x5d, 0x00},
      {(byte) 0xfe, (byte) 0xff, 0x00, 0x5b, 0x00, 0x5d},
      {(byte) 0xff, (byte) 0xfe, 0x5b, 0x00, 0x5d, 0x00}
    };
    for (byte[] body : bodies) {
      assertThatThrownBy(() -> JsonMessages.split(body, true)).isInstanceOf(InvalidJson.class);
    }
  }

  @Test
  void joinsMessagesIntoAnArray() {
    assertThat(new String(JsonMessages.join(List.of()), UTF_8)).isEqualTo("[]");
    assertThat(
            new String(
                JsonMessages.join(List.of("1".getBytes(UTF_8), "{\"a\":2}".getBytes(UTF_8))),
                UTF_8))
        .isEqualTo("[1,{\"a\":2}]");
  }
}
