package io.picomq.protocol;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The canonical header order is the order of the names' UTF-8 bytes, compared unsigned. */
class RecordHeadersTest {

  @Test
  void nameOrderIsUnsignedUtf8ByteOrder() {
    qt().withExamples(3000)
        .forAll(longs().all())
        .checkAssert(
            seed -> {
              Random random = new Random(seed);
              String a = Samples.text(random, 4);
              String b = Samples.text(random, 4);

              assertThat(Integer.signum(RecordHeaders.NAME_ORDER.compare(a, b)))
                  .as("%s vs %s", a, b)
                  .isEqualTo(
                      Integer.signum(Arrays.compareUnsigned(a.getBytes(UTF_8), b.getBytes(UTF_8))));
            });
  }

  @Test
  void aSupplementaryCharacterSortsAfterTheLastBmpCharacter() {
    // UTF-16 comparison (String.compareTo) would put the emoji first: its high surrogate is
    // below U+FFFD.
    assertThat(RecordHeaders.canonical(Map.of("\uFFFD", "1", "😀", "2")).firstKey())
        .isEqualTo("\uFFFD");
  }

  @Test
  void canonicalCopiesAreUnmodifiableAndDetached() {
    Map<String, String> source = new HashMap<>(Map.of("b", "1", "a", "2"));
    var canonical = RecordHeaders.canonical(source);
    source.put("c", "3");

    assertThat(canonical.keySet()).containsExactly("a", "b");
    assertThatThrownBy(() -> canonical.put("d", "4"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void emptyNamesAndLoneSurrogatesAreRefused() {
    assertThatThrownBy(() -> RecordHeaders.canonical(Map.of("", "v")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> RecordHeaders.canonical(Map.of("a\uDC00", "v")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("surrogate");
  }
}
