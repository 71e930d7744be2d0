package io.picomq.client;

import java.util.List;

/**
 * The answer to a read or a {@link Consumer#poll}.
 *
 * @param records the records read, in seq order; may be empty
 * @param nextSeq where the next read continues
 * @param upToDate whether the read reached the stream's tail
 * @param closed whether the stream is sealed and has been read to its end
 */
public record ReadResult(List<ReadRecord> records, long nextSeq, boolean upToDate, boolean closed) {

  public ReadResult {
    records = List.copyOf(records);
  }
}
