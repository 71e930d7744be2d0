package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AckSequencerTest {

  @Test
  void aLaterAnswerWaitsForTheEarlierOnes() {
    AckSequencer<String> sequencer = new AckSequencer<>();
    sequencer.register(0);
    sequencer.register(1);
    sequencer.register(2);

    assertThat(sequencer.complete(2, "c")).isEmpty();
    assertThat(sequencer.complete(1, "b")).isEmpty();
    assertThat(sequencer.releasedThrough(0)).isFalse();
    assertThat(sequencer.complete(0, "a"))
        .extracting(AckSequencer.Released::outcome)
        .containsExactly("a", "b", "c");
    assertThat(sequencer.releasedThrough(2)).isTrue();
    assertThat(sequencer.pending()).isZero();
  }

  @Test
  void pendingIsTrueUntilReleased() {
    AckSequencer<String> sequencer = new AckSequencer<>();
    sequencer.register(0);
    sequencer.register(1);
    sequencer.complete(1, "b");

    assertThat(sequencer.isPending(1)).isTrue();
    sequencer.complete(0, "a");
    assertThat(sequencer.isPending(1)).isFalse();
  }

  @Test
  void misuseIsRefused() {
    AckSequencer<String> sequencer = new AckSequencer<>();
    sequencer.register(3);

    assertThatThrownBy(() -> sequencer.register(3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> sequencer.complete(4, "x"))
        .isInstanceOf(IllegalArgumentException.class);
    sequencer.complete(3, "x");
    assertThatThrownBy(() -> sequencer.complete(3, "x"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anyAnswerOrderReleasesInSeqOrder() {
    long seed = Long.getLong("picomq.seed", new Random().nextLong());
    Random random = new Random(seed);
    for (int round = 0; round < 100; round++) {
      AckSequencer<Long> sequencer = new AckSequencer<>();
      List<Long> seqs = new ArrayList<>();
      for (long s = 0; s < 50; s++) {
        sequencer.register(s);
        seqs.add(s);
      }
      Collections.shuffle(seqs, random);
      List<Long> released = new ArrayList<>();
      for (long s : seqs) {
        sequencer.complete(s, s).forEach(r -> released.add(r.outcome()));
      }
      assertThat(released).as("seed %d", seed).isSorted().hasSize(50);
    }
  }
}
