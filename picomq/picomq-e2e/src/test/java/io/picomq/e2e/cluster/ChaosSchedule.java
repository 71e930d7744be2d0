package io.picomq.e2e.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The faults of one chaos run, drawn from a seed so that a run can be repeated: one node at a time
 * is SIGKILLed and started again after a while, SIGSTOPped past its liveness TTL and resumed,
 * restarted gracefully, or has its streams transferred away under load. Events do not overlap: each
 * starts after the previous one ended and a gap.
 *
 * <p>A fault names its node by rank, not id: streams move to the survivors of each fault, and a
 * fault on a node that holds none tests little. Rank 0 is the node holding the most open streams
 * when the fault starts (ties to the lower id); most faults hit it.
 *
 * @param events in the order they happen
 */
record ChaosSchedule(List<Event> events) {

  /** What is done to a node. */
  enum Kind {
    /** SIGKILL, down for {@code hold}, then started again on the same data and port. */
    KILL,
    /** SIGSTOP for {@code hold} (past the TTL: it is taken over), then SIGCONT. */
    PAUSE,
    /** SIGTERM (a graceful stop), then started again at once. */
    RESTART,
    /** No fault: every stream the node holds open is transferred to the other nodes in turn. */
    TRANSFER
  }

  /**
   * One fault.
   *
   * @param at when it starts, from the start of the load
   * @param rank which node: 0 the one holding the most open streams, up to {@code nodes - 1}
   * @param hold how long the node stays down or stopped
   */
  record Event(Duration at, Kind kind, int rank, Duration hold) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%6.1fs %-7s node ranked %d by streams held, for %.1fs",
          at.toMillis() / 1000.0,
          kind,
          rank,
          hold.toMillis() / 1000.0);
    }
  }

  /** The first fault waits for the load to get going. */
  private static final Duration WARM_UP = Duration.ofSeconds(8);

  /** No fault starts this close to the end: the last one has time to heal under load. */
  static final Duration COOL_DOWN = Duration.ofSeconds(12);

  /**
   * Draws the faults of a run of {@code length}: about one every 15 s.
   *
   * @param ttl the nodes' liveness TTL: a kill is held shorter or longer than it (a restart that
   *     races the failover, or one after it), a pause always longer (so it is taken over)
   */
  static ChaosSchedule draw(long seed, Duration length, int nodes, Duration ttl) {
    Random random = new Random(seed);
    List<Event> events = new ArrayList<>();
    long at = WARM_UP.toMillis();
    long end = length.minus(COOL_DOWN).toMillis();
    while (at < end) {
      int rank = random.nextInt(10) < 7 ? 0 : random.nextInt(nodes);
      int roll = random.nextInt(10);
      Kind kind =
          roll < 3 ? Kind.KILL : roll < 6 ? Kind.PAUSE : roll < 8 ? Kind.RESTART : Kind.TRANSFER;
      long hold =
          switch (kind) {
            case KILL -> 200 + random.nextLong(ttl.toMillis() * 3);
            case PAUSE -> ttl.toMillis() + 1_000 + random.nextLong(ttl.toMillis() * 2);
            case RESTART, TRANSFER -> 0;
          };
      events.add(new Event(Duration.ofMillis(at), kind, rank, Duration.ofMillis(hold)));
      // The node takes a few seconds to start again and recover; then the load runs a while.
      at += hold + 6_000 + random.nextLong(6_000);
    }
    return new ChaosSchedule(List.copyOf(events));
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    events.forEach(event -> out.append("  ").append(event).append('\n'));
    return out.toString();
  }
}
