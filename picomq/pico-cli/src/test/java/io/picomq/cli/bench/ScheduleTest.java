package io.picomq.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScheduleTest {

  @Test
  void unpacedUnitsAreDueWhenTheWriterIsReady() {
    Schedule schedule = new Schedule(1_000, 0, 4, 2, 10);
    assertThat(schedule.paced()).isFalse();
    assertThat(schedule.dueNanos(7, 123_456)).isEqualTo(123_456);
  }

  @Test
  void writersShareTheRateEvenlyAndInterleave() {
    // 1,000 records/s, 4 writers, 5 records per append: one append every 5 ms overall, each
    // writer every 20 ms, writer w offset by w * 5 ms.
    List<Long> all = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      Schedule schedule = new Schedule(0, 1_000, 4, w, 5);
      assertThat(schedule.dueNanos(0, 0)).isEqualTo(w * 5_000_000L);
      assertThat(schedule.dueNanos(1, 0) - schedule.dueNanos(0, 0)).isEqualTo(20_000_000L);
      for (long k = 0; k < 50; k++) {
        all.add(schedule.dueNanos(k, 0));
      }
    }
    all.sort(null);
    for (int i = 0; i < all.size(); i++) {
      assertThat(all.get(i)).isEqualTo(i * 5_000_000L);
    }
  }

  @Test
  void dueTimesDoNotDriftOverALongRun() {
    // 3 records/s does not divide a second evenly; the billionth unit is still on time.
    Schedule schedule = new Schedule(0, 3, 1, 0, 1);
    long k = 1_000_000_000L;
    assertThat(schedule.dueNanos(k, 0)).isEqualTo(Math.round(k * 1e9 / 3));
  }

  @Test
  void theNumberOfUnitsDueInAWindowMatchesTheRate() {
    int writers = 7;
    long window = 2_000_000_000L;
    long due = 0;
    for (int w = 0; w < writers; w++) {
      Schedule schedule = new Schedule(0, 4_900, writers, w, 1);
      for (long k = 0; schedule.dueNanos(k, 0) < window; k++) {
        due++;
      }
    }
    assertThat(due).isEqualTo(9_800);
  }

  @Test
  void badSchedulesAreRefused() {
    assertThatThrownBy(() -> new Schedule(0, -1, 1, 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Schedule(0, 1, 2, 2, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Schedule(0, 1, 1, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
