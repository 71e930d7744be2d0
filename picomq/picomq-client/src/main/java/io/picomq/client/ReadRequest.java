package io.picomq.client;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * What one {@link PicoClient#read} asks for. Immutable: e.g. {@code
 * ReadRequest.from(0).maxRecords(100).longPoll(true)}.
 *
 * @param seq the first seq to read; empty: from the tail (only records appended from now on)
 * @param maxRecords at most this many records; 0: the server's default
 * @param maxBytes at most about this many body bytes; 0: the server's default. Durable Streams has
 *     neither cap: there both are applied client-side to what one response holds
 * @param longPoll whether to park on the server until data arrives, the stream closes or the
 *     server's long-poll timeout (about 25 s) passes
 */
public record ReadRequest(OptionalLong seq, int maxRecords, long maxBytes, boolean longPoll) {

  public ReadRequest {
    Objects.requireNonNull(seq, "seq");
    seq.ifPresent(s -> OptionChecks.notNegative(s, "seq"));
    OptionChecks.notNegative(maxRecords, "maxRecords");
    OptionChecks.notNegative(maxBytes, "maxBytes");
  }

  /** A read from {@code seq} on. */
  public static ReadRequest from(long seq) {
    return new ReadRequest(OptionalLong.of(seq), 0, 0, false);
  }

  /** A read from the stream's tail: only records appended later. */
  public static ReadRequest fromTail() {
    return new ReadRequest(OptionalLong.empty(), 0, 0, false);
  }

  /** Whether this read starts at the tail. */
  public boolean isFromTail() {
    return seq.isEmpty();
  }

  /** A copy capped at {@code maxRecords} records (0: no cap). */
  public ReadRequest maxRecords(int maxRecords) {
    return new ReadRequest(seq, maxRecords, maxBytes, longPoll);
  }

  /** A copy capped at about {@code maxBytes} bytes (0: no cap). */
  public ReadRequest maxBytes(long maxBytes) {
    return new ReadRequest(seq, maxRecords, maxBytes, longPoll);
  }

  /** A copy that long-polls (or not). */
  public ReadRequest longPoll(boolean longPoll) {
    return new ReadRequest(seq, maxRecords, maxBytes, longPoll);
  }
}
