package io.picomq.frontend.ds;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.CharConversionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * JSON mode (protocol section 7.1): a stream of {@code application/json} stores one record per
 * message. An appended body that is an array contributes each element as a message (one level
 * flattened: {@code [[1,2],[3]]} is two messages); any other value is one message. Reads answer a
 * JSON array of the messages.
 *
 * <p>Messages are stored as the exact bytes the client sent for them (whitespace between tokens
 * inside a message included), never re-serialized, so numbers keep their precision.
 */
final class JsonMessages {

  private static final JsonFactory JSON = new JsonFactory();

  private JsonMessages() {}

  /**
   * Splits a body into messages.
   *
   * @param allowEmptyArray whether {@code []} is acceptable (a create) or refused (an append)
   * @throws InvalidJson if the body is not one JSON value, or is an empty array where refused
   */
  static List<byte[]> split(byte[] body, boolean allowEmptyArray) throws InvalidJson {
    if (!utf8(body)) {
      throw new InvalidJson("a JSON body is UTF-8");
    }
    try (JsonParser parser = JSON.createParser(body)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new InvalidJson("the body holds no JSON value");
      }
      List<byte[]> messages = new ArrayList<>();
      if (first == JsonToken.START_ARRAY) {
        JsonToken token = parser.nextToken();
        while (token != JsonToken.END_ARRAY) {
          int start = offset(parser);
          parser.skipChildren();
          token = parser.nextToken();
          if (token == null) {
            throw new InvalidJson("the JSON array is not closed");
          }
          messages.add(slice(body, start, offset(parser)));
        }
        if (messages.isEmpty() && !allowEmptyArray) {
          throw new InvalidJson("an append of an empty JSON array has no messages");
        }
      } else {
        parser.skipChildren();
        messages.add(slice(body, 0, body.length));
      }
      if (parser.nextToken() != null) {
        throw new InvalidJson("the body holds more than one JSON value");
      }
      return messages;
    } catch (JsonProcessingException e) {
      throw new InvalidJson("invalid JSON: " + e.getOriginalMessage());
    } catch (CharConversionException e) {
      throw new InvalidJson("invalid JSON: " + e.getMessage());
    } catch (IOException e) {
      throw new UncheckedIOException("parsing bytes in memory cannot fail on I/O", e);
    }
  }

  /**
   * Whether the body can be UTF-8 JSON as far as the parser's encoding detection goes: Jackson
   * reads a body with a zero byte among its first four, or a UTF-16 byte-order mark, as UTF-16 or
   * UTF-32, and then the byte offsets the split relies on are not byte offsets. No UTF-8 JSON text
   * has either (a NUL is escaped inside strings and nowhere else).
   */
  private static boolean utf8(byte[] body) {
    for (int i = 0; i < Math.min(4, body.length); i++) {
      if (body[i] == 0) {
        return false;
      }
    }
    return body.length < 2
        || !((body[0] == (byte) 0xfe && body[1] == (byte) 0xff)
            || (body[0] == (byte) 0xff && body[1] == (byte) 0xfe));
  }

  /** The messages as one JSON array. */
  static byte[] join(List<byte[]> messages) {
    int size = 2 + Math.max(0, messages.size() - 1);
    for (byte[] message : messages) {
      size += message.length;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(size);
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

  private static int offset(JsonParser parser) {
    return (int) parser.currentTokenLocation().getByteOffset();
  }

  /**
   * The bytes of one value: from its first token up to the next token, without the separating comma
   * and the whitespace around it.
   */
  private static byte[] slice(byte[] body, int start, int nextTokenStart) {
    int end = nextTokenStart;
    while (end > start && isWhitespace(body[end - 1])) {
      end--;
    }
    if (end > start && body[end - 1] == ',') {
      end--;
    }
    while (end > start && isWhitespace(body[end - 1])) {
      end--;
    }
    while (start < end && isWhitespace(body[start])) {
      start++;
    }
    return Arrays.copyOfRange(body, start, end);
  }

  private static boolean isWhitespace(byte b) {
    return b == ' ' || b == '\t' || b == '\n' || b == '\r';
  }
}
