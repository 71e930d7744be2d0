package io.picomq.sql.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LivenessViewTest {
  private static final long RENEWED_AT = 1_000_000;
  private static final long TTL = 10_000;

  /** Node 1's row: epoch 5, TTL 10 s, renewed at RENEWED_AT. */
  private static LivenessView viewAt(long nowMillis) {
    return new LivenessView(
        Map.of(1, new LivenessRow(1, 5, TTL, RENEWED_AT, RENEWED_AT + TTL)), nowMillis);
  }

  @Test
  void aProcessThatWasStartingAtTheReadIsSuspectUntilAReadWithoutItsRow() {
    LivenessView read = viewAt(RENEWED_AT).later(3_000);
    // Node 2 has no row. A process that started long enough before the read to have written its
    // first row is dead. One that started just before the read (its row may come after it: it
    // chose its epoch, then opened the database) or after it is suspect, however old the view.
    long starting = LivenessView.STARTING_MILLIS;
    assertThat(read.state(2, RENEWED_AT - starting)).isEqualTo(NodeState.DEAD);
    assertThat(read.state(2, RENEWED_AT - starting + 1)).isEqualTo(NodeState.SUSPECT);
    assertThat(read.state(2, RENEWED_AT - 1)).isEqualTo(NodeState.SUSPECT);
    assertThat(read.state(2, RENEWED_AT + 1)).isEqualTo(NodeState.SUSPECT);
    assertThat(read.later(60_000).state(2, RENEWED_AT + 1)).isEqualTo(NodeState.SUSPECT);
    // A later read without its row: gone.
    assertThat(viewAt(RENEWED_AT + starting + 2).state(2, RENEWED_AT + 1))
        .isEqualTo(NodeState.DEAD);
  }

  @ParameterizedTest(name = "node {0} epoch {1}, {2} ms after renewal: {3}")
  @CsvSource({
    // just renewed, same epoch
    "1, 5, 0, LIVE",
    // within two renewal intervals (half the TTL), inclusive
    "1, 5, 2500, LIVE",
    "1, 5, 5000, LIVE",
    // missed renewals, not lapsed
    "1, 5, 5001, SUSPECT",
    "1, 5, 9999, SUSPECT",
    // lapsed: the expiry is the first dead millisecond
    "1, 5, 10000, DEAD",
    "1, 5, 60000, DEAD",
    // a newer process of the node renews: the node id is alive
    "1, 4, 0, LIVE",
    "1, 4, 7000, SUSPECT",
    "1, 4, 10000, DEAD",
    // an older process's row: the one asked about never renewed, but the node id is not dead yet
    "1, 6, 0, SUSPECT",
    "1, 6, 9999, SUSPECT",
    "1, 6, 10000, DEAD",
    // no row at all
    "2, 5, 0, DEAD",
    "2, 0, 0, DEAD",
    // the database's clock stepped back: still live
    "1, 5, -100, LIVE",
  })
  void judgesOneRow(int nodeId, long nodeEpoch, long sinceRenewal, NodeState expected) {
    assertThat(viewAt(RENEWED_AT + sinceRenewal).state(nodeId, nodeEpoch)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} ms later: {1}")
  @CsvSource({"0, LIVE", "5000, LIVE", "5001, SUSPECT", "10000, DEAD"})
  void anOlderViewAgesOnTime(long elapsed, NodeState expected) {
    assertThat(viewAt(RENEWED_AT).later(elapsed).state(1, 5)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "TTL {0} ms, {1} ms after renewal: {2}")
  @CsvSource({
    "500, 250, LIVE",
    "500, 251, SUSPECT",
    "500, 500, DEAD",
    "1001, 500, LIVE",
    "1001, 501, SUSPECT",
    "1001, 1001, DEAD",
  })
  void eachRowIsJudgedByItsOwnTtl(long ttl, long sinceRenewal, NodeState expected) {
    LivenessView view =
        new LivenessView(
            Map.of(3, new LivenessRow(3, 1, ttl, RENEWED_AT, RENEWED_AT + ttl)),
            RENEWED_AT + sinceRenewal);
    assertThat(view.state(3, 1)).isEqualTo(expected);
  }

  @Test
  void emptyViewHasEveryNodeDeadAndRowsMustBeFiledUnderTheirNode() {
    assertThat(LivenessView.empty(RENEWED_AT).state(1, 0)).isEqualTo(NodeState.DEAD);
    assertThat(LivenessView.empty(RENEWED_AT).row(1)).isEmpty();
    assertThat(NodeState.SUSPECT.label()).isEqualTo("suspect");
    assertThatThrownBy(
            () -> new LivenessView(Map.of(2, new LivenessRow(1, 5, TTL, 0, TTL)), RENEWED_AT))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> viewAt(RENEWED_AT).later(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
