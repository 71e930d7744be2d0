package io.picomq.meta.command;

import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Checks strings that commands carry. A Java string may hold an unpaired surrogate, which UTF-8
 * cannot represent: encoding it would silently change it, and the decoded command would differ from
 * the proposed one. Such strings are refused when the command is built.
 */
final class Text {

  private Text() {}

  /** The UTF-8 length of {@code text}, if it is at most {@code maxBytes} and well formed. */
  static int requireUtf8(String what, String text, int maxBytes) {
    if (text == null) {
      throw new IllegalArgumentException(what + " is null");
    }
    int length;
    try {
      length =
          StandardCharsets.UTF_8
              .newEncoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .encode(CharBuffer.wrap(text))
              .remaining();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(what + " is not well-formed Unicode", e);
    }
    if (length > maxBytes) {
      throw new IllegalArgumentException(
          what + " is " + length + " UTF-8 bytes, more than " + maxBytes);
    }
    return length;
  }
}
