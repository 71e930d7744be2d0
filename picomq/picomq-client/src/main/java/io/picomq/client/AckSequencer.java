package io.picomq.client;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Releases batch outcomes strictly in producer-seq order, whatever order the answers come in: an
 * answer for batch 5 is held until batches 0 to 4 have theirs. (With several appends in flight a
 * later one can answer first: e.g. an earlier one timed out, was resent and answered duplicate
 * after the later one was accepted.)
 *
 * <p>Not thread-safe: the session calls it under its lock.
 *
 * @param <T> the outcome
 */
final class AckSequencer<T> {

  private final ArrayDeque<Long> order = new ArrayDeque<>();
  private final Map<Long, T> outcomes = new HashMap<>();

  /** Registers a batch; batches must be registered in increasing producer-seq order. */
  void register(long producerSeq) {
    if (!order.isEmpty() && order.peekLast() >= producerSeq) {
      throw new IllegalArgumentException(
          "batch " + producerSeq + " registered after batch " + order.peekLast());
    }
    order.addLast(producerSeq);
  }

  /**
   * Records a batch's outcome and answers the outcomes now released, in order (possibly none).
   *
   * @throws IllegalArgumentException if the batch is not registered or already has an outcome
   */
  List<Released<T>> complete(long producerSeq, T outcome) {
    if (!order.contains(producerSeq) || outcomes.containsKey(producerSeq)) {
      throw new IllegalArgumentException("batch " + producerSeq + " is not awaiting an outcome");
    }
    outcomes.put(producerSeq, outcome);
    List<Released<T>> released = new ArrayList<>();
    while (!order.isEmpty() && outcomes.containsKey(order.peekFirst())) {
      long seq = order.removeFirst();
      released.add(new Released<>(seq, outcomes.remove(seq)));
    }
    return released;
  }

  /** Whether the batch is registered and not yet released. */
  boolean isPending(long producerSeq) {
    return order.contains(producerSeq);
  }

  /** Whether every batch up to and including {@code producerSeq} has been released. */
  boolean releasedThrough(long producerSeq) {
    return order.isEmpty() || order.peekFirst() > producerSeq;
  }

  /** How many batches await release. */
  int pending() {
    return order.size();
  }

  /** One released outcome. */
  record Released<T>(long producerSeq, T outcome) {}
}
