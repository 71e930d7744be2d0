package io.picomq.stream;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * Where a fork branches off its source.
 *
 * <p>A fork inherits the source's records {@code [0, seq)} by reference, keeps their seqs, and
 * continues with its own records from {@code seq} on; appends to either side afterwards are
 * invisible to the other. With {@code partialBytes > 0} the fork also takes the first {@code
 * partialBytes} bytes of the source record at {@code seq} as its own first record (same headers and
 * timestamp), so a fork may split one appended record.
 *
 * <p>Worked examples on a source holding {@code A(0) B(1) "hello"(2)}, tail 3:
 *
 * <ul>
 *   <li>{@code seq=2, partialBytes=0}: fork reads {@code A B}, next seq 2;
 *   <li>{@code seq=2, partialBytes=3}: fork reads {@code A B "hel"}, next seq 3;
 *   <li>{@code seq=2, partialBytes=5}: the whole record copied, fork reads {@code A B "hello"};
 *   <li>{@code seq=2, partialBytes=6}, {@code seq=3, partialBytes=1} or {@code seq=4}: {@link
 *       CreateOutcome.InvalidForkPoint}.
 * </ul>
 *
 * @param source the source stream's name; it must exist and not be soft-deleted
 * @param seq where the fork branches; empty means the source's tail at the moment of the fork. On a
 *     repeated create, an empty seq matches the existing fork's branch point whatever it is
 * @param partialBytes bytes of the record at {@code seq} to copy; 0 for none
 */
public record ForkPoint(String source, OptionalLong seq, int partialBytes) {

  public ForkPoint {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(seq, "seq");
    if (seq.isPresent() && seq.getAsLong() < 0) {
      throw new IllegalArgumentException("fork seq must not be negative: " + seq.getAsLong());
    }
    if (partialBytes < 0) {
      throw new IllegalArgumentException("partialBytes must not be negative: " + partialBytes);
    }
  }

  /** A fork at the source's current tail. */
  public static ForkPoint atTail(String source) {
    return new ForkPoint(source, OptionalLong.empty(), 0);
  }

  /** A fork inheriting records {@code [0, seq)}. */
  public static ForkPoint at(String source, long seq) {
    return new ForkPoint(source, OptionalLong.of(seq), 0);
  }
}
