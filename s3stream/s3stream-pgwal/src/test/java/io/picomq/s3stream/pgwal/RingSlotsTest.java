package io.picomq.s3stream.pgwal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The ring rules with 100-byte segments and 3 slots. */
class RingSlotsTest {

  private final RingSlots ring = new RingSlots(new RingGeometry(100, 3));

  @Test
  void aBatchCrossingASegmentEndBelongsToTheSlotOfItsStart() {
    assertThat(ring.occupy(0, 60)).isEqualTo(0);
    assertThat(ring.occupy(60, 130)).isEqualTo(0); // generation 0, ends in segment 1
    assertThat(ring.occupy(130, 180)).isEqualTo(1);
    // Segment 0 is trimmed, but slot 0's last row ends at 130: not yet.
    assertThat(ring.truncatable(99)).isEmpty();
    assertThat(ring.truncatable(128)).isEmpty();
    assertThat(ring.truncatable(129)).containsExactly(0);
  }

  @Test
  void aNewGenerationWaitsUntilItsSlotIsTruncated() {
    ring.occupy(0, 100);
    ring.occupy(100, 200);
    ring.occupy(200, 300);
    assertThat(ring.admits(300)).as("generation 3 needs slot 0, which holds 0").isFalse();
    assertThatThrownBy(() -> ring.occupy(300, 310)).isInstanceOf(IllegalStateException.class);
    assertThat(ring.heldBy(300)).isZero();
    assertThat(ring.truncatable(150)).containsExactly(0);
    ring.truncated(ring.truncatable(150));
    assertThat(ring.admits(300)).isTrue();
    assertThat(ring.occupy(300, 310)).isZero();
    assertThat(ring.admits(350)).as("the same generation keeps going").isTrue();
  }

  @Test
  void theSegmentTheHeadIsInIsNeverTruncatable() {
    ring.occupy(0, 40);
    // Everything stored is trimmed, but more of generation 0 may still come.
    assertThat(ring.truncatable(39)).isEmpty();
    ring.occupy(40, 100);
    assertThat(ring.truncatable(99)).containsExactly(0);
  }
}
