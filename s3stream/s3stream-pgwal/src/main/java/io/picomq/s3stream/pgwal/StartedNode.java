package io.picomq.s3stream.pgwal;

import java.util.List;

/**
 * What a start found once it had claimed the node.
 *
 * @param trimOffset the recorded trim offset
 * @param nextOffset where this epoch appends: after every row found, and after the trim
 * @param untrimmed the rows holding records above the trim offset, in no order
 */
record StartedNode(long trimOffset, long nextOffset, List<RowRange> untrimmed) {

  StartedNode {
    untrimmed = List.copyOf(untrimmed);
  }
}
