package io.picomq.frontend.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A check on request targets that Netty's decoding does not make: Netty turns percent-escaped bytes
 * that are not UTF-8 into U+FFFD, so {@code /%ff%fe} and {@code /%fe%ff} (or the overlong {@code
 * /%c0%af}) would all name one stream. The listener refuses such a target instead.
 */
final class RequestTargets {

  private RequestTargets() {}

  /**
   * Whether {@code target} (path and query, as sent) percent-decodes to well-formed UTF-8: no stray
   * continuation byte, no overlong form, no surrogate. A malformed escape such as {@code %zz} is
   * left to the decoder, which refuses it anyway.
   */
  static boolean decodesToUtf8(String target) {
    if (target.indexOf('%') < 0) {
      return true;
    }
    ByteBuffer bytes = ByteBuffer.allocate(target.length() * 3);
    for (int i = 0; i < target.length(); i++) {
      char c = target.charAt(i);
      int high = c == '%' && i + 2 < target.length() ? hex(target.charAt(i + 1)) : -1;
      int low = high >= 0 ? hex(target.charAt(i + 2)) : -1;
      if (low >= 0) {
        bytes.put((byte) (high << 4 | low));
        i += 2;
      } else {
        bytes.put(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    CharsetDecoder strict =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      strict.decode(bytes.flip());
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private static int hex(char c) {
    return Character.digit(c, 16);
  }
}
