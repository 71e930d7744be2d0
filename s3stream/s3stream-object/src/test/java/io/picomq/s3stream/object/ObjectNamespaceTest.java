package io.picomq.s3stream.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ObjectNamespaceTest {

  @Test
  void thePrefixIsTheReversedZeroPaddedHexOfTheId() {
    // 0x1_0000_0000 has 9 hex digits, so it is not padded: "100000000" reversed.
    assertThat(ObjectNamespace.DEFAULT.key(0x1_0000_0000L))
        .isEqualTo("000000001/DEFAULT/4294967296");
    assertThat(ObjectNamespace.DEFAULT.key(0xABCL)).isEqualTo("cba00000/DEFAULT/2748");
    assertThat(new ObjectNamespace("prod").key(16)).isEqualTo("01000000/prod/16");
  }

  @Test
  void everyKeyParsesBackToItsId() {
    // Ids of every width, from 0 to Long.MAX_VALUE: a uniform draw would give 19-digit ids only,
    // and the prefix pads the short ones.
    qt().withExamples(1000)
        .forAll(
            integers()
                .between(0, 63)
                .flatMap(bits -> longs().between(0, Long.MAX_VALUE >>> (63 - bits))))
        .checkAssert(
            objectId -> {
              String key = ObjectNamespace.DEFAULT.key(objectId);
              assertThat(ObjectNamespace.DEFAULT.parseObjectId(key)).hasValue(objectId);
              assertThat(new ObjectNamespace("OTHER").parseObjectId(key)).isEmpty();
            });
  }

  @Test
  void keysThatAreNotDataObjectsOfTheNamespaceDoNotParse() {
    ObjectNamespace ns = ObjectNamespace.DEFAULT;
    for (String key :
        new String[] {
          "",
          "10000000/DEFAULT/",
          "10000000/DEFAULT/01",
          "20000000/DEFAULT/1",
          "10000000/DEFAULTX/1",
          "10000000/DEFAULT/1/x",
          "10000000/DEFAULT/-1",
          "10000000/DEFAULT/99999999999999999999",
          "ABCDEF/DEFAULT/1/wal/0"
        }) {
      assertThat(ns.parseObjectId(key)).as(key).isEqualTo(OptionalLong.empty());
    }
  }

  @Test
  void rejectsNegativeIdsAndBadNamespaces() {
    assertThatThrownBy(() -> ObjectNamespace.DEFAULT.key(-1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ObjectNamespace("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ObjectNamespace("a/b"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
