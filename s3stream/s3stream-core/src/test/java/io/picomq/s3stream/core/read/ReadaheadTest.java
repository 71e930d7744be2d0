package io.picomq.s3stream.core.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Pins the worked example of {@link Readahead}'s class comment, and its resets. */
class ReadaheadTest {

  private static final long S = 3;

  /** One read of [from, to) by whichever reader is expected at {@code from}. */
  private static Optional<Readahead.Window> read(Readahead readahead, long from, long to) {
    return readahead.end(readahead.begin(S, from), to);
  }

  private static void fetched(Optional<Readahead.Window> window, long upTo) {
    window.orElseThrow().reader().prefetched(upTo);
  }

  private static long[] shape(Optional<Readahead.Window> window) {
    return new long[] {window.orElseThrow().fromOffset(), window.orElseThrow().bytes()};
  }

  @Test
  void windowsDoubleAndStayAheadOfASequentialReader() {
    Readahead readahead = new Readahead(1, 16, 10);
    assertThat(read(readahead, 0, 1)).as("a new reader reads nothing ahead").isEmpty();
    Optional<Readahead.Window> w = read(readahead, 1, 2);
    assertThat(shape(w)).containsExactly(2, 1);
    fetched(w, 3);
    w = read(readahead, 2, 3);
    assertThat(shape(w)).containsExactly(3, 2);
    fetched(w, 5);
    w = read(readahead, 3, 4);
    assertThat(shape(w)).containsExactly(5, 4);
    fetched(w, 9);
    w = read(readahead, 4, 5);
    assertThat(shape(w)).containsExactly(9, 8);
    fetched(w, 17);
    assertThat(read(readahead, 5, 6)).as("still before the last window").isEmpty();
    for (long at = 6; at < 8; at++) {
      assertThat(read(readahead, at, at + 1)).isEmpty();
    }
    assertThat(shape(read(readahead, 8, 9))).as("reaching the last window").containsExactly(17, 16);
  }

  @Test
  void theWindowStopsGrowingAtTheMaximum() {
    Readahead readahead = new Readahead(4, 8, 10);
    read(readahead, 0, 1);
    long[] sizes = new long[4];
    long next = 1;
    for (int i = 0; i < sizes.length; i++) {
      Optional<Readahead.Window> w = read(readahead, next, next + 100);
      sizes[i] = w.orElseThrow().bytes();
      next += 100;
    }
    assertThat(sizes).containsExactly(4, 8, 8, 8);
  }

  @Test
  void aJumpStartsANewReader() {
    Readahead readahead = new Readahead(1, 16, 10);
    read(readahead, 0, 1);
    fetched(read(readahead, 1, 2), 3);
    fetched(read(readahead, 2, 3), 5);
    assertThat(read(readahead, 100, 101)).isEmpty();
    assertThat(shape(read(readahead, 101, 102))).containsExactly(102, 1);
  }

  @Test
  void readersOfOneStreamAtDifferentPlacesKeepTheirOwnState() {
    Readahead readahead = new Readahead(1, 16, 10);
    read(readahead, 0, 1);
    read(readahead, 500, 501);
    assertThat(shape(read(readahead, 1, 2))).containsExactly(2, 1);
    assertThat(shape(read(readahead, 501, 502))).containsExactly(502, 1);
  }

  @Test
  void onlyTheMostRecentReadersAreRemembered() {
    Readahead readahead = new Readahead(1, 16, 2);
    read(readahead, 0, 1);
    read(readahead, 100, 101);
    read(readahead, 200, 201);
    assertThat(read(readahead, 1, 2)).as("forgotten: a new reader").isEmpty();
    assertThat(read(readahead, 201, 202)).isPresent();
  }

  @Test
  void aZeroInitialWindowTurnsReadaheadOff() {
    Readahead readahead = new Readahead(0, 0, 10);
    for (long at = 0; at < 10; at++) {
      assertThat(read(readahead, at, at + 1)).isEmpty();
    }
  }
}
