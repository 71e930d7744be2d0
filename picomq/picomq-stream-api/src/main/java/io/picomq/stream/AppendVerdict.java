package io.picomq.stream;

/** What {@link StreamService#append} did. The order of the checks is on {@link AppendRequest}. */
public sealed interface AppendVerdict {

  /**
   * Written (or, for a close-only call, the stream is now closed). The records occupy {@code
   * [startSeq, nextSeq)}; all carry {@code timestampMillis}.
   *
   * @param closed whether the stream is closed now
   */
  record Accepted(long startSeq, long nextSeq, long timestampMillis, boolean closed)
      implements AppendVerdict {}

  /**
   * The producer already had this seq accepted; nothing was written.
   *
   * @param lastProducerSeq the highest seq accepted from this producer in its current epoch
   * @param nextSeq the stream's tail
   * @param closed whether the stream is closed
   */
  record Duplicate(long lastProducerSeq, long nextSeq, boolean closed) implements AppendVerdict {}

  /** The producer's epoch is older than the one the stream knows: a fenced zombie. */
  record StaleEpoch(long currentEpoch) implements AppendVerdict {}

  /** A producer's new epoch must begin at seq 0. */
  record EpochMustStartAtZero(long epoch, long receivedSeq) implements AppendVerdict {}

  /** The producer skipped seqs: the service expected {@code expectedSeq}. */
  record SeqGap(long expectedSeq, long receivedSeq) implements AppendVerdict {}

  /** The writer seq is not above the last accepted one. */
  record WriterSeqRegression(String lastWriterSeq, String receivedWriterSeq)
      implements AppendVerdict {}

  /** The conditional append expected another tail. */
  record TailMismatch(long expectedNextSeq, long nextSeq) implements AppendVerdict {}

  /** The stream is sealed; {@code nextSeq} is its final tail. */
  record Closed(long nextSeq) implements AppendVerdict {}

  /** The records' content type is not the stream's. */
  record ContentTypeMismatch(String streamContentType) implements AppendVerdict {}

  record NotFound() implements AppendVerdict {}

  /** The stream is soft-deleted (see {@link StreamService#delete}). */
  record Gone() implements AppendVerdict {}
}
