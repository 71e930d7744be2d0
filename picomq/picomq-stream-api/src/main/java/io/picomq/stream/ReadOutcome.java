package io.picomq.stream;

import java.util.List;

/** What {@link StreamService#read} found. */
public sealed interface ReadOutcome {

  /**
   * Records {@code [fromSeq, nextSeq)} (possibly none, when {@code fromSeq} is the tail), and the
   * stream as it was when they were read.
   */
  record Batch(StreamDescription stream, List<StreamRecord> records, long nextSeq)
      implements ReadOutcome {

    public Batch {
      records = List.copyOf(records);
    }

    /** The batch reaches the tail: there was nothing more to read. */
    public boolean upToDate() {
      return nextSeq == stream.nextSeq();
    }

    /** The stream is sealed and this batch read it to the end: there will never be more. */
    public boolean endOfStream() {
      return stream.closed() && upToDate();
    }
  }

  /** {@code fromSeq} was trimmed away; the stream now starts at {@code startSeq}. */
  record Trimmed(long startSeq) implements ReadOutcome {}

  /** {@code fromSeq} lies past the tail {@code nextSeq}. */
  record BeyondTail(long nextSeq) implements ReadOutcome {}

  record NotFound() implements ReadOutcome {}

  /** The stream is soft-deleted (see {@link StreamService#delete}). */
  record Gone() implements ReadOutcome {}
}
