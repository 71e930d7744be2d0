package io.picomq.stream;

/**
 * An idempotent producer's identity on one append call.
 *
 * <p>A producer numbers its append calls (not records: a call with many records is one seq) {@code
 * 0, 1, 2, ...} within an epoch, and starts a new epoch at seq 0 when it restarts. The service
 * keeps, per stream and producer id, the highest epoch and the last accepted seq in it, and judges
 * each call against that state:
 *
 * <ul>
 *   <li>epoch below the known one: {@link AppendVerdict.StaleEpoch} (a zombie is fenced);
 *   <li>epoch above the known one: accepted only at seq 0 ({@link
 *       AppendVerdict.EpochMustStartAtZero} otherwise);
 *   <li>same epoch, seq at or below the last accepted: {@link AppendVerdict.Duplicate}, nothing
 *       written;
 *   <li>same epoch, seq one above the last accepted: accepted;
 *   <li>same epoch, a larger jump: {@link AppendVerdict.SeqGap}.
 * </ul>
 *
 * An unknown producer is accepted at seq 0 in any epoch, and answered {@code SeqGap(0, seq)}
 * otherwise. Producer state survives restarts and transfers, and is not inherited by forks.
 *
 * @param id non-empty, chosen by the client
 * @param epoch at least 0
 * @param seq at least 0
 */
public record ProducerTag(String id, long epoch, long seq) {

  public ProducerTag {
    if (id == null || id.isEmpty()) {
      throw new IllegalArgumentException("producer id must not be empty");
    }
    if (epoch < 0 || seq < 0) {
      throw new IllegalArgumentException(
          "producer epoch and seq must not be negative: epoch=" + epoch + " seq=" + seq);
    }
  }
}
