package io.picomq.client;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Durable Streams' JSON mode: an append's body is an array whose elements become one message each,
 * and a read answers an array of messages. Messages are kept as the exact bytes of each element, so
 * what was appended reads back byte for byte.
 */
final class JsonArrays {

  private JsonArrays() {}

  /** The array {@code [m1,m2,...]} of the given messages (each must be one JSON value). */
  static byte[] join(List<byte[]> messages) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write('[');
    for (int i = 0; i < messages.size(); i++) {
      if (i > 0) {
        out.write(',');
      }
      out.writeBytes(messages.get(i));
    }
    out.write(']');
    return out.toByteArray();
  }

  /**
   * The elements of a JSON array, each as its exact bytes; an empty body is no messages.
   *
   * @throws IllegalArgumentException if {@code body} is not a JSON array
   */
  static List<byte[]> split(byte[] body) {
    if (isBlank(body)) {
      return List.of();
    }
    List<byte[]> messages = new ArrayList<>();
    try (JsonParser parser = ErrorAnswers.JSON.getFactory().createParser(body)) {
      if (parser.nextToken() != JsonToken.START_ARRAY) {
        throw new IllegalArgumentException("not a JSON array");
      }
      for (JsonToken token = parser.nextToken();
          token != JsonToken.END_ARRAY;
          token = parser.nextToken()) {
        if (token == null) {
          throw new IllegalArgumentException("the JSON array is not closed");
        }
        int start = (int) parser.currentTokenLocation().getByteOffset();
        // Strings are decoded lazily: finish the token so the location is past its end.
        parser.skipChildren();
        parser.finishToken();
        int end = (int) parser.currentLocation().getByteOffset();
        messages.add(Arrays.copyOfRange(body, start, end));
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("not a JSON array: " + e.getMessage(), e);
    }
    return messages;
  }

  private static boolean isBlank(byte[] body) {
    for (byte b : body) {
      if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
        return false;
      }
    }
    return true;
  }
}
