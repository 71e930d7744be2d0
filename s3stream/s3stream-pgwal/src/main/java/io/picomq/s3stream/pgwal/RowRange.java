package io.picomq.s3stream.pgwal;

/**
 * Where one slot row sits, without its body.
 *
 * @param table the slot table holding it
 * @param startOffset the WAL offset of its first record
 * @param endOffset the WAL offset after its last record
 * @param epoch the epoch of the writer that inserted it
 */
record RowRange(String table, long startOffset, long endOffset, long epoch) {

  @Override
  public String toString() {
    return table + " [" + startOffset + ", " + endOffset + ") of epoch " + epoch;
  }
}
