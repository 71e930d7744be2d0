package io.picomq.s3stream.pgwal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.wal.RecoveredRecord;
import io.picomq.s3stream.wal.Recovery;
import io.picomq.s3stream.wal.TestRecords;
import io.picomq.s3stream.wal.WalAppendResult;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/** What the Postgres WAL tests beyond the contract share. */
final class WalTesting {

  static final long TIMEOUT_SECONDS = 60;

  private WalTesting() {}

  /** A record as a test appended it. */
  record Appended(long offset, byte[] bytes, CompletableFuture<Void> durable) {}

  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new CompletionException(e);
    }
  }

  /** Starts, recovers (releasing what it found) and resets: open for appends. */
  static WriteAheadLog openAndReset(PostgresWals wals, int nodeId, long epoch) {
    WriteAheadLog wal = wals.open(nodeId, epoch);
    await(wal.start());
    await(wal.recover()).release();
    await(wal.reset());
    return wal;
  }

  /** Starts the node's WAL under {@code epoch} and recovers; the caller releases the result. */
  static Recovery startAndRecover(PostgresWals wals, int nodeId, long epoch) {
    WriteAheadLog wal = wals.open(nodeId, epoch);
    await(wal.start());
    Recovery recovery = await(wal.recover());
    wal.close();
    return recovery;
  }

  /** Appends a record that must be accepted. */
  static Appended append(WriteAheadLog wal, Random random, int index, int payloadBytes) {
    ByteBuf body = TestRecords.body(random, index % 5, index, payloadBytes);
    try {
      WalAppendResult result = wal.append(body);
      assertThat(result).isInstanceOf(WalAppendResult.Accepted.class);
      WalAppendResult.Accepted accepted = (WalAppendResult.Accepted) result;
      return new Appended(accepted.offset(), TestRecords.bytes(body), accepted.durable());
    } finally {
      body.release();
    }
  }

  /** Recovered exactly {@code expected}, offsets and bytes. */
  static void assertRecovered(Recovery recovery, List<Appended> expected) {
    assertThat(recovery.records())
        .extracting(RecoveredRecord::offset)
        .containsExactlyElementsOf(expected.stream().map(Appended::offset).toList());
    for (int i = 0; i < expected.size(); i++) {
      assertThat(TestRecords.bytes(recovery.records().get(i).body()))
          .as("bytes at offset %d", expected.get(i).offset())
          .isEqualTo(expected.get(i).bytes());
    }
  }
}
