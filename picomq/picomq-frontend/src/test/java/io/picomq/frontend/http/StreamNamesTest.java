package io.picomq.frontend.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StreamNamesTest {

  @Test
  void acceptsPaths() {
    assertThat(StreamNames.problem("/orders")).isEmpty();
    assertThat(StreamNames.problem("/orders/2024/42")).isEmpty();
    assertThat(StreamNames.problem("/a.b/..c/é/x y")).isEmpty();
    assertThat(StreamNames.problem("/" + "n".repeat(StreamNames.MAX_BYTES - 1))).isEmpty();
  }

  @Test
  void refusesWhatIsNotAName() {
    assertThat(StreamNames.problem("")).isPresent();
    assertThat(StreamNames.problem("orders")).isPresent();
    assertThat(StreamNames.problem("/")).hasValueSatisfying(p -> assertThat(p).contains("empty"));
    assertThat(StreamNames.problem("/a//b"))
        .hasValueSatisfying(p -> assertThat(p).contains("empty"));
    assertThat(StreamNames.problem("/a/")).isPresent();
    assertThat(StreamNames.problem("/a/../b"))
        .hasValueSatisfying(p -> assertThat(p).contains(".."));
    assertThat(StreamNames.problem("/a/./b")).isPresent();
    assertThat(StreamNames.problem("/..")).isPresent();
    assertThat(StreamNames.problem("/a\nb"))
        .hasValueSatisfying(p -> assertThat(p).contains("control"));
    assertThat(StreamNames.problem("/" + "n".repeat(StreamNames.MAX_BYTES))).isPresent();
    // The cap counts UTF-8 bytes, not characters.
    assertThat(StreamNames.problem("/" + "é".repeat(StreamNames.MAX_BYTES / 2 + 1))).isPresent();
  }
}
