package io.picomq.s3stream.pgwal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which generation each slot table holds now, and when it may be truncated. Owner thread only.
 *
 * <p>Rules (offsets are WAL offsets, {@code T} the durable trim offset):
 *
 * <ul>
 *   <li>A batch of generation {@code g} may be inserted when its slot is empty or already holds
 *       {@code g}; if the slot still holds an older generation, the batch waits (and every later
 *       one with it, so inserts stay in offset order).
 *   <li>A slot is truncatable when its generation's segment ends at or below {@code T + 1} and
 *       every row in it ends at or below {@code T + 1}: then every record in it is trimmed, and no
 *       insert into it can be in flight (those would start below {@code T + 1}, which is below the
 *       confirm offset, so they are confirmed already).
 * </ul>
 *
 * Only this epoch's rows are tracked: the reset that opens the WAL empties every slot.
 */
final class RingSlots {

  private static final long EMPTY = -1;

  private final RingGeometry geometry;

  /** Per slot, the generation its rows belong to, or {@link #EMPTY}. */
  private final long[] generations;

  /** Per slot, the highest end offset of its rows. */
  private final long[] maxEnds;

  RingSlots(RingGeometry geometry) {
    this.geometry = geometry;
    this.generations = new long[geometry.segments()];
    this.maxEnds = new long[geometry.segments()];
    Arrays.fill(generations, EMPTY);
  }

  /** True if a batch starting at {@code startOffset} may be inserted now. */
  boolean admits(long startOffset) {
    long generation = geometry.generation(startOffset);
    long held = generations[geometry.slot(generation)];
    return held == EMPTY || held == generation;
  }

  /** Records a batch about to be inserted ({@link #admits} said yes); returns its slot. */
  int occupy(long startOffset, long endOffset) {
    long generation = geometry.generation(startOffset);
    int slot = geometry.slot(generation);
    if (!admits(startOffset)) {
      throw new IllegalStateException(
          "slot " + slot + " still holds generation " + generations[slot] + ", not " + generation);
    }
    generations[slot] = generation;
    maxEnds[slot] = Math.max(maxEnds[slot], endOffset);
    return slot;
  }

  /** The slots whose every record is at or below {@code trimOffset}. */
  List<Integer> truncatable(long trimOffset) {
    long firstUntrimmed = trimOffset + 1;
    List<Integer> slots = new ArrayList<>();
    for (int slot = 0; slot < generations.length; slot++) {
      long generation = generations[slot];
      if (generation != EMPTY
          && geometry.segmentEnd(generation) <= firstUntrimmed
          && maxEnds[slot] <= firstUntrimmed) {
        slots.add(slot);
      }
    }
    return slots;
  }

  /** The slots were truncated: they take any generation again. */
  void truncated(List<Integer> slots) {
    for (int slot : slots) {
      generations[slot] = EMPTY;
      maxEnds[slot] = 0;
    }
  }

  /** The generation the slot of {@code startOffset} holds, for messages. */
  long heldBy(long startOffset) {
    return generations[geometry.slot(geometry.generation(startOffset))];
  }
}
