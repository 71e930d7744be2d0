package io.picomq.stream;

/**
 * Read records from {@code fromSeq} on. A read returns at least one record when any exists at
 * {@code fromSeq}, even if that record alone exceeds {@code maxBytes}, so a reader always makes
 * progress; beyond the first record it stops before either cap would be exceeded.
 *
 * @param fromSeq the first seq wanted
 * @param maxRecords at least 1
 * @param maxBytes a cap on the sum of body sizes, at least 1
 */
public record ReadWindow(long fromSeq, int maxRecords, long maxBytes) {

  public ReadWindow {
    if (fromSeq < 0 || maxRecords < 1 || maxBytes < 1) {
      throw new IllegalArgumentException(
          "need fromSeq >= 0, maxRecords >= 1, maxBytes >= 1: fromSeq="
              + fromSeq
              + " maxRecords="
              + maxRecords
              + " maxBytes="
              + maxBytes);
    }
  }
}
