package io.picomq.s3stream.wal;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a WAL held when it was started: the records appended by earlier epochs of the node and not
 * trimmed, in offset order, up to the first damaged record or gap.
 *
 * @param records the records, ascending offsets, each owned by the receiver
 * @param trimOffset the trim offset recovery started from: records at offsets {@code <=} it were
 *     trimmed ({@code -1} if none)
 * @param stoppedBy why reading stopped before the end of what storage holds (a torn or corrupt
 *     record, a gap), or empty when everything found was read
 */
public record Recovery(List<RecoveredRecord> records, long trimOffset, Optional<String> stoppedBy) {

  public Recovery {
    records = List.copyOf(records);
    Objects.requireNonNull(stoppedBy, "stoppedBy");
  }

  /** Releases the body of every record once. */
  public void release() {
    records.forEach(record -> record.body().release());
  }
}
