package io.picomq.client;

/**
 * Translates between seqs and Durable Streams offsets. PicoMQ's offsets are {@code
 * RRRRRRRRRRRRRRRR_SSSSSSSSSSSSSSSS}: sixteen reserved digits (zero today) and the seq as sixteen
 * zero-padded digits, so the offset {@code 0000000000000000_0000000000000042} is seq 42 and the
 * sentinel {@code -1} (the stream's start) is seq 0. A stream's tail is asked for with {@code now}.
 *
 * <p>Parsing accepts any reserved half of sixteen digits, so an offset from a future server that
 * uses it still yields its seq; formatting always writes zeros there, as the server does.
 */
final class DsOffsets {

  /** The offset of a stream's start, whatever was trimmed. */
  static final String START = "-1";

  /** The offset of a stream's tail at the time of the request. */
  static final String NOW = "now";

  private static final int DIGITS = 16;
  private static final String RESERVED = "0".repeat(DIGITS);

  private DsOffsets() {}

  /** The offset of {@code seq}. */
  static String format(long seq) {
    if (seq < 0) {
      throw new IllegalArgumentException("a seq must not be negative: " + seq);
    }
    String digits = Long.toString(seq);
    if (digits.length() > DIGITS) {
      throw new IllegalArgumentException("seq " + seq + " does not fit an offset");
    }
    return RESERVED + "_" + "0".repeat(DIGITS - digits.length()) + digits;
  }

  /**
   * The seq an offset names: {@code -1} is 0, a token is its second half.
   *
   * @throws IllegalArgumentException for {@code now} (not a position) or a malformed offset
   */
  static long parse(String offset) {
    if (offset == null) {
      throw new IllegalArgumentException("no offset");
    }
    String token = offset.strip();
    if (token.equals(START)) {
      return 0;
    }
    if (token.length() != 2 * DIGITS + 1 || token.charAt(DIGITS) != '_') {
      throw new IllegalArgumentException("not a PicoMQ offset: " + offset);
    }
    long seq = 0;
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (i == DIGITS) {
        continue;
      }
      if (c < '0' || c > '9') {
        throw new IllegalArgumentException("not a PicoMQ offset: " + offset);
      }
      if (i > DIGITS) {
        seq = seq * 10 + (c - '0');
      }
    }
    return seq;
  }
}
