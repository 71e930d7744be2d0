package io.picomq.s3stream.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ObjectAttributesTest {

  @Test
  void bitsAreLaidOutAsTheUpstreamDoes() {
    ObjectAttributes attributes = ObjectAttributes.of(ObjectType.COMPOSITE, 0x1234, true);
    assertThat(attributes.value()).isEqualTo(1 | 0x1234 << 2 | 1 << 18);
    assertThat(attributes.type()).isEqualTo(ObjectType.COMPOSITE);
    assertThat(attributes.bucket()).isEqualTo(0x1234);
    assertThat(attributes.deepDelete()).isTrue();
    assertThat(ObjectAttributes.NORMAL.value()).isZero();
  }

  @Test
  void theHighestBucketDoesNotSpillIntoOtherBits() {
    ObjectAttributes attributes = ObjectAttributes.of(ObjectType.NORMAL, 0xFFFF, false);
    assertThat(attributes.bucket()).isEqualTo(0xFFFF);
    assertThat(attributes.type()).isEqualTo(ObjectType.NORMAL);
    assertThat(attributes.deepDelete()).isFalse();
  }

  @Test
  void undefinedTypesAndBucketsAreRejected() {
    assertThatThrownBy(() -> new ObjectAttributes(2).type())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> ObjectAttributes.of(ObjectType.NORMAL, 0x10000, false))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
