package io.picomq.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The sweep's queue hands out exactly the entries due, earliest first, and keeps the rest. */
class ExpiryQueueTest {
  @Test
  void takesOnlyTheDueEntriesInDeadlineOrder() {
    long seed = Long.getLong("picomq.seed", new Random().nextLong());
    Random random = new Random(seed);
    ExpiryQueue<Long> queue = new ExpiryQueue<>();
    List<Long> deadlines = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      long at = random.nextInt(10_000);
      deadlines.add(at);
      queue.add(at, at);
    }
    deadlines.sort(null);

    long now = random.nextInt(10_000);
    List<Long> due = queue.takeDue(now);
    List<Long> expected = deadlines.stream().filter(at -> at <= now).toList();
    assertThat(due).as("seed %d", seed).isEqualTo(expected);
    assertThat(queue.takeDue(now)).as("seed %d", seed).isEmpty();
    assertThat(queue.takeDue(Long.MAX_VALUE))
        .as("seed %d", seed)
        .isEqualTo(deadlines.subList(expected.size(), deadlines.size()));
  }
}
