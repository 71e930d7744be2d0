package io.picomq.stream;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Append records to a stream, atomically: all of them get consecutive seqs and one timestamp, or
 * none is written.
 *
 * <p>The service checks, in this order, stopping at the first that fails: the stream exists ({@link
 * AppendVerdict.NotFound}, {@link AppendVerdict.Gone}); the content type, unless the call appends
 * no records ({@link AppendVerdict.ContentTypeMismatch}); the producer ({@link ProducerTag} lists
 * the outcomes; a duplicate is answered even on a closed stream); the stream is open ({@link
 * AppendVerdict.Closed}; closing an already closed stream without records and without a producer
 * succeeds again); the writer seq ({@link AppendVerdict.WriterSeqRegression}); the expected tail
 * ({@link AppendVerdict.TailMismatch}). Producer state and the writer seq advance only when the
 * append is accepted.
 *
 * @param records what to append; empty only together with {@code close} (a close-only call)
 * @param contentType the content type the client claims for the records, compared by media type
 *     with the stream's; empty skips the check
 * @param producer the idempotent producer stamp, if the client sent one
 * @param writerSeq an opaque application sequence token: when present it must be strictly greater,
 *     comparing UTF-8 bytes unsigned, than the last one accepted on this stream
 * @param expectedNextSeq a condition: append only if the stream's tail is exactly this seq
 * @param close seal the stream after these records, in the same atomic step
 */
public record AppendRequest(
    List<NewRecord> records,
    Optional<String> contentType,
    Optional<ProducerTag> producer,
    Optional<String> writerSeq,
    OptionalLong expectedNextSeq,
    boolean close) {

  public AppendRequest {
    records = List.copyOf(records);
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(producer, "producer");
    Objects.requireNonNull(writerSeq, "writerSeq");
    Objects.requireNonNull(expectedNextSeq, "expectedNextSeq");
    if (records.isEmpty() && !close) {
      throw new IllegalArgumentException("an append without records must close the stream");
    }
  }

  /** Plain records, no conditions. */
  public static AppendRequest of(List<NewRecord> records) {
    return new AppendRequest(
        records, Optional.empty(), Optional.empty(), Optional.empty(), OptionalLong.empty(), false);
  }

  /** Seal the stream without appending. */
  public static AppendRequest closeOnly() {
    return new AppendRequest(
        List.of(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        OptionalLong.empty(),
        true);
  }
}
