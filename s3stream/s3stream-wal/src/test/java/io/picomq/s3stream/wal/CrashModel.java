package io.picomq.s3stream.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the randomized crash test knows about a node's WAL: every record appended since the last
 * completed reset, which were acknowledged, and the trims asked for and completed. Acknowledgement
 * callbacks update it from the WAL's thread, so every method takes the lock.
 */
final class CrashModel {

  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock.
  private final NavigableMap<Long, byte[]> appended = new TreeMap<>();
  private final Set<Long> acked = new HashSet<>();
  private long requestedTrim = -1;
  private long durableTrim = -1;
  private boolean resetUncertain;
  private int recoveredRecords;
  private int appendedRecords;
  private int ackedRecords;

  void appended(long offset, byte[] bytes) {
    lock.lock();
    try {
      appended.put(offset, bytes);
      appendedRecords++;
    } finally {
      lock.unlock();
    }
  }

  void acked(long offset) {
    lock.lock();
    try {
      acked.add(offset);
      ackedRecords++;
    } finally {
      lock.unlock();
    }
  }

  void trimRequested(long offset) {
    lock.lock();
    try {
      requestedTrim = Math.max(requestedTrim, offset);
    } finally {
      lock.unlock();
    }
  }

  void trimDurable(long offset) {
    lock.lock();
    try {
      durableTrim = Math.max(durableTrim, offset);
    } finally {
      lock.unlock();
    }
  }

  /** An acknowledged offset to trim at, if any. */
  Optional<Long> someAcked(Random random) {
    lock.lock();
    try {
      List<Long> candidates = new ArrayList<>(acked);
      return candidates.isEmpty()
          ? Optional.empty()
          : Optional.of(candidates.get(random.nextInt(candidates.size())));
    } finally {
      lock.unlock();
    }
  }

  /** A reset completed: everything before is consumed. */
  void resetDone() {
    lock.lock();
    try {
      appended.clear();
      acked.clear();
      requestedTrim = -1;
      durableTrim = -1;
      resetUncertain = false;
    } finally {
      lock.unlock();
    }
  }

  /** A crash hit a reset in progress: the old records may or may not come back. */
  void resetInterrupted() {
    lock.lock();
    try {
      resetUncertain = true;
      acked.clear();
    } finally {
      lock.unlock();
    }
  }

  /** Totals over the run, to show that the test exercised something. */
  String summary() {
    lock.lock();
    try {
      return appendedRecords
          + " records appended, "
          + ackedRecords
          + " acknowledged, "
          + recoveredRecords
          + " recovered";
    } finally {
      lock.unlock();
    }
  }

  /** Checks a recovery against everything the model knows; {@code where} names seed and round. */
  void check(Recovery recovery, String where) {
    lock.lock();
    try {
      List<Long> offsets = recovery.records().stream().map(RecoveredRecord::offset).toList();
      recoveredRecords += offsets.size();
      assertThat(offsets)
          .as("%s: recovered offsets ascend", where)
          .isSorted()
          .doesNotHaveDuplicates();
      for (RecoveredRecord record : recovery.records()) {
        byte[] expected = appended.get(record.offset());
        assertThat(expected)
            .as("%s: recovered offset %d was appended", where, record.offset())
            .isNotNull();
        assertThat(TestRecords.bytes(record.body()))
            .as("%s: bytes at offset %d", where, record.offset())
            .isEqualTo(expected);
        assertThat(record.offset())
            .as("%s: offset %d was durably trimmed (<= %d)", where, record.offset(), durableTrim)
            .isGreaterThan(durableTrim);
      }
      if (!offsets.isEmpty()) {
        assertThat(appended.subMap(offsets.getFirst(), true, offsets.getLast(), true).keySet())
            .as("%s: recovered records are contiguous", where)
            .containsExactlyElementsOf(offsets);
      }
      Set<Long> recovered = new HashSet<>(offsets);
      for (Map.Entry<Long, byte[]> record : appended.entrySet()) {
        long offset = record.getKey();
        if (!resetUncertain && acked.contains(offset) && offset > requestedTrim) {
          assertThat(recovered)
              .as("%s: acknowledged untrimmed offset %d is recovered", where, offset)
              .contains(offset);
        }
      }
    } finally {
      lock.unlock();
    }
  }
}
