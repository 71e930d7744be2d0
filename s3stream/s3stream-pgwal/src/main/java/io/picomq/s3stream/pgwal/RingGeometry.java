package io.picomq.s3stream.pgwal;

/**
 * How WAL offsets map onto the ring of slot tables. Offsets fall into segments of {@code
 * segmentBytes}; the segment number is the <em>generation</em>, and generation {@code g} lives in
 * slot table {@code g % segments}.
 *
 * <p>A batch belongs to the generation its first offset falls in, even when its last records run
 * past the segment's end: a batch is never split and the address space never skips. Example with 64
 * KiB segments and 4 slots: a batch {@code [65000, 66560)} is generation 0 and goes to slot 0; the
 * next batch {@code [66560, ...)} is generation 1, slot 1. Slot 0 therefore holds rows that end up
 * to one batch past 65536, which is why a slot is truncated only once the trim passes both its
 * segment and every row in it ({@link RingSlots}).
 *
 * @param segmentBytes offsets per segment
 * @param segments slot tables in the ring
 */
record RingGeometry(long segmentBytes, int segments) {

  RingGeometry {
    if (segmentBytes < 1 || segments < 1) {
      throw new IllegalArgumentException(
          "segmentBytes and segments must be positive: " + segmentBytes + ", " + segments);
    }
  }

  /**
   * Refuses a ring that could fill up with records still waiting to be stored: {@code (segments -
   * 1) * segmentBytes} must exceed {@code maxUnflushedBytes}.
   */
  static void checkCapacity(long segmentBytes, int segments, long maxUnflushedBytes) {
    long capacity;
    try {
      capacity = Math.multiplyExact(segments - 1L, segmentBytes);
    } catch (ArithmeticException tooLarge) {
      return;
    }
    if (capacity <= maxUnflushedBytes) {
      throw new IllegalArgumentException(
          "(segments - 1) * segmentBytes = ("
              + segments
              + " - 1) * "
              + segmentBytes
              + " = "
              + capacity
              + " must exceed maxUnflushedBytes ("
              + maxUnflushedBytes
              + "): raise segments or segmentBytes, or lower maxUnflushedBytes");
    }
  }

  /**
   * Bytes of records the ring holds while the trim stands still: every slot but the one being
   * truncated next (saturating at {@code Long.MAX_VALUE}).
   */
  long capacityBytes() {
    try {
      return Math.multiplyExact(segments - 1L, segmentBytes);
    } catch (ArithmeticException tooLarge) {
      return Long.MAX_VALUE;
    }
  }

  long generation(long offset) {
    return offset / segmentBytes;
  }

  int slot(long generation) {
    return (int) (generation % segments);
  }

  /** The first offset after the generation's segment. */
  long segmentEnd(long generation) {
    return (generation + 1) * segmentBytes;
  }
}
