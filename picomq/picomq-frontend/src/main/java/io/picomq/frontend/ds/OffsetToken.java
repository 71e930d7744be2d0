package io.picomq.frontend.ds;

import java.util.Optional;

/**
 * Offsets on the wire. The protocol's offsets are opaque, fixed-width and lexicographically
 * sortable; ours are {@code RRRRRRRRRRRRRRRR_SSSSSSSSSSSSSSSS}: sixteen digits reserved (always
 * zero today) and the record seq as sixteen zero-padded digits. So offset {@code
 * 0000000000000000_0000000000000000} is the start of every stream (the protocol's examples use it
 * too), and the offset after the first record is {@code 0000000000000000_0000000000000001}. The
 * sentinels {@code -1} (the stream's start) and {@code now} (its tail) are parsed here too.
 */
sealed interface OffsetToken {

  String RESERVED = "0000000000000000";
  int DIGITS = 16;

  /** {@code -1}: from the first readable record. */
  record Start() implements OffsetToken {}

  /** {@code now}: from the tail, skipping what exists. */
  record Now() implements OffsetToken {}

  /** A real position. */
  record At(long seq) implements OffsetToken {}

  static String format(long seq) {
    String digits = Long.toString(seq);
    return RESERVED + "_" + "0".repeat(DIGITS - digits.length()) + digits;
  }

  /** The token, or empty when it is not one this server hands out. */
  static Optional<OffsetToken> parse(String token) {
    return switch (token) {
      case "-1" -> Optional.of(new Start());
      case "now" -> Optional.of(new Now());
      default -> parsePosition(token).map(At::new);
    };
  }

  /** A position token's seq, or empty when malformed (sentinels included). */
  static Optional<Long> parsePosition(String token) {
    if (token.length() != 2 * DIGITS + 1
        || token.charAt(DIGITS) != '_'
        || !token.startsWith(RESERVED)) {
      return Optional.empty();
    }
    long seq = 0;
    for (int i = DIGITS + 1; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c < '0' || c > '9') {
        return Optional.empty();
      }
      seq = seq * 10 + (c - '0');
    }
    return Optional.of(seq);
  }
}
