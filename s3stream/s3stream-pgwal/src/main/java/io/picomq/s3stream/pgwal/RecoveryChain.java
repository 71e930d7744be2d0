package io.picomq.s3stream.pgwal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The rows recovery reads: from the trim offset on, in offset order, as long as each row starts
 * exactly where the previous one ended.
 *
 * <p>With {@code T} the trim offset, rows ending at or below {@code T + 1} hold only trimmed
 * records and are skipped; the first other row must start at or below {@code T + 1}. A gap means an
 * insert that never committed, so nothing after it was acknowledged. A row of an epoch above the
 * recovering one cannot exist once this epoch claimed the node; if one does, reading stops there.
 *
 * @param rows the rows to read, ascending
 * @param stoppedBy why the chain ends before the last row found, if it does
 */
record RecoveryChain(List<RowRange> rows, Optional<String> stoppedBy) {

  RecoveryChain {
    rows = List.copyOf(rows);
  }

  /** The chain through {@code found} (any order) above {@code trimOffset}, for {@code epoch}. */
  static RecoveryChain of(List<RowRange> found, long trimOffset, long epoch) {
    List<RowRange> sorted = new ArrayList<>(found);
    sorted.sort(Comparator.comparingLong(RowRange::startOffset));
    long firstUntrimmed = trimOffset + 1;
    List<RowRange> chain = new ArrayList<>();
    long expectedStart = -1;
    for (RowRange row : sorted) {
      if (row.endOffset() <= firstUntrimmed) {
        continue;
      }
      if (row.epoch() > epoch) {
        return new RecoveryChain(
            chain, Optional.of(row + " is of an epoch above the recovering " + epoch));
      }
      if (expectedStart < 0) {
        if (row.startOffset() > firstUntrimmed) {
          return new RecoveryChain(
              chain,
              Optional.of(
                  "gap: the first row after trim offset "
                      + trimOffset
                      + " is "
                      + row
                      + ", which starts after "
                      + firstUntrimmed));
        }
      } else if (row.startOffset() != expectedStart) {
        return new RecoveryChain(
            chain,
            Optional.of("gap: expected a row starting at " + expectedStart + ", found " + row));
      }
      chain.add(row);
      expectedStart = row.endOffset();
    }
    return new RecoveryChain(chain, Optional.empty());
  }
}
