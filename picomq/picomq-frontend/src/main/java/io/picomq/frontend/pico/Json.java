package io.picomq.frontend.pico;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import io.picomq.protocol.RecordHeaders;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Writing the protocol's JSON answers, and the record object shared by reads and SSE. */
final class Json {

  /**
   * Buffers come from a shared pool: the default pool keeps them per thread, and requests run on
   * virtual threads, which would make every document allocate fresh buffers.
   */
  static final JsonFactory FACTORY =
      JsonFactory.builder().recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool()).build();

  private Json() {}

  /** What writes one JSON document. */
  interface Writer {
    void writeTo(JsonGenerator json) throws IOException;
  }

  static byte[] write(Writer writer) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator json = FACTORY.createGenerator(out)) {
      writer.writeTo(json);
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return out.toByteArray();
  }

  /**
   * {@code {"seq": n, "timestamp": ms, "headers": {...}, "body": "..."}}, with {@code body_b64}
   * (standard base64) instead of {@code body} when the body is not UTF-8 text.
   */
  static void writeRecord(
      JsonGenerator json, long seq, long timestampMillis, Map<String, String> headers, byte[] body)
      throws IOException {
    json.writeStartObject();
    json.writeNumberField("seq", seq);
    json.writeNumberField("timestamp", timestampMillis);
    json.writeObjectFieldStart("headers");
    // Name order, as in every Pico encoding: the same record always reads back the same bytes.
    TreeMap<String, String> sorted = new TreeMap<>(RecordHeaders.NAME_ORDER);
    sorted.putAll(headers);
    for (Map.Entry<String, String> header : sorted.entrySet()) {
      json.writeStringField(header.getKey(), header.getValue());
    }
    json.writeEndObject();
    Optional<String> text = utf8(body);
    if (text.isPresent()) {
      json.writeStringField("body", text.get());
    } else {
      json.writeStringField("body_b64", Base64.getEncoder().encodeToString(body));
    }
    json.writeEndObject();
  }

  /** The text of well-formed UTF-8, or empty. */
  static Optional<String> utf8(byte[] bytes) {
    try {
      return Optional.of(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString());
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
  }
}
