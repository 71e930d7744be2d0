package io.picomq.frontend.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The body of every error answer: {@code {"error": "...", "message": "..."}}. {@code error} is a
 * stable machine-readable code (snake case), {@code message} says what was wrong in words.
 */
public final class JsonError {

  private static final JsonFactory JSON = new JsonFactory();

  private JsonError() {}

  public static byte[] body(String error, String message) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + message.length());
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("error", error);
      json.writeStringField("message", message);
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return out.toByteArray();
  }
}
