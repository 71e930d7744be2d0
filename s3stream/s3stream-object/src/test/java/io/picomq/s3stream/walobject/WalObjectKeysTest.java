package io.picomq.s3stream.walobject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.quicktheories.core.Gen;

class WalObjectKeysTest {

  // MD5("1") = c4ca4238a0b923820dcc509a6f75849b (RFC 1321 style test value, well known).
  private static final String NODE_1 = "C4CA4238A0B923820DCC509A6F75849B/_kafka_c1/1/";

  @Test
  void prefixHashesTheNodeIdAndNamesTheCluster() {
    assertThat(WalObjectKeys.nodePrefix("c1", 1)).isEqualTo(NODE_1);
  }

  @Test
  void typedPrefixSuffixesTheNodeSegment() {
    assertThat(WalObjectKeys.nodePrefix("c1", 1, "meta"))
        .isEqualTo("C4CA4238A0B923820DCC509A6F75849B/_kafka_c1/1_meta/");
    assertThatThrownBy(() -> WalObjectKeys.nodePrefix("c1", 1, " "))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void buildsBothKeyVersions() {
    assertThat(WalObjectKeys.keyV0(NODE_1, 3, 8192)).isEqualTo(NODE_1 + "3/wal/8192");
    assertThat(WalObjectKeys.keyV1(NODE_1, 3, 8192, 12288)).isEqualTo(NODE_1 + "3/wal/8192-12288");
  }

  @Test
  void parsesAV1Key() {
    String key = NODE_1 + "3/wal/0-67108864";
    assertThat(WalObjectKeys.parse(NODE_1, key)).contains(new WalObjectKey.V1(key, 3, 0, 67108864));
  }

  @Test
  void parsesAV0KeyWhoseEndComesFromTheObjectSize() {
    String key = NODE_1 + "9/wal/4096";
    WalObjectKey parsed = WalObjectKeys.parse(NODE_1, key).orElseThrow();
    assertThat(parsed).isEqualTo(new WalObjectKey.V0(key, 9, 4096));
    // A v0 object of 1040 bytes: 40 header bytes and 1000 bytes of records.
    assertThat(parsed.endOffset(1040)).isEqualTo(5096);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "3/wal/",
        "3/wal/-5",
        "3/wal/5-",
        "3/wal/10-5",
        "3/wal/007",
        "3/wal/+7",
        "3/wal/7-8-9",
        "3/wal/7 ",
        "-3/wal/7",
        "x/wal/7",
        "/wal/7",
        "3/wal/99999999999999999999",
        "3/notwal/7",
        "3/7",
        "3/wal/7/extra",
        "a/3/wal/7",
      })
  void rejectsForeignKeysUnderThePrefix(String rest) {
    assertThat(WalObjectKeys.parse(NODE_1, NODE_1 + rest)).isEmpty();
  }

  @Test
  void rejectsKeysOfAnotherNode() {
    String otherNode = WalObjectKeys.nodePrefix("c1", 12);
    assertThat(WalObjectKeys.parse(NODE_1, WalObjectKeys.keyV1(otherNode, 1, 0, 1))).isEmpty();
    assertThat(WalObjectKeys.parse(NODE_1, "C4CA4238A0B923820DCC509A6F75849B/_kafka_c1/1"))
        .isEmpty();
  }

  /**
   * Values of every width from 0 to {@code max}: a uniform draw would give 19-digit numbers only,
   * and the parser must take 1-digit ones as well.
   */
  private static Gen<Long> upTo(long max) {
    return integers()
        .between(0, 63)
        .flatMap(bits -> longs().between(0, Math.min(max, Long.MAX_VALUE >>> (63 - bits))));
  }

  @Test
  void everyV1KeyParsesBack() {
    qt().withExamples(1000)
        .forAll(upTo(Long.MAX_VALUE), upTo(Long.MAX_VALUE / 2), upTo(Long.MAX_VALUE / 2))
        .checkAssert(
            (epoch, start, length) -> {
              String key = WalObjectKeys.keyV1(NODE_1, epoch, start, start + length);
              assertThat(WalObjectKeys.parse(NODE_1, key))
                  .contains(new WalObjectKey.V1(key, epoch, start, start + length));
            });
  }

  @Test
  void everyV0KeyParsesBack() {
    qt().withExamples(1000)
        .forAll(upTo(Long.MAX_VALUE), upTo(Long.MAX_VALUE))
        .checkAssert(
            (epoch, start) -> {
              String key = WalObjectKeys.keyV0(NODE_1, epoch, start);
              assertThat(WalObjectKeys.parse(NODE_1, key))
                  .contains(new WalObjectKey.V0(key, epoch, start));
            });
  }
}
