package io.picomq.cli.client;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.picomq.client.ReadRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Prints records to standard output in one {@link RecordFormat}. Used by one thread. */
final class RecordWriter {
  private final Output out;
  private final RecordFormat format;
  // Only for JSON: a generator writing straight into the output buffer, one object per line.
  private final JsonGenerator json;

  RecordWriter(Output out, RecordFormat format) {
    this.out = out;
    this.format = format;
    try {
      this.json =
          format == RecordFormat.JSON
              ? new JsonFactory().createGenerator(out.stream(), JsonEncoding.UTF8)
              : null;
    } catch (IOException e) {
      throw new Output.ReaderGone(e);
    }
    if (json != null) {
      json.setRootValueSeparator(null);
      // Flushing the generator only moves its bytes into our buffer, not to the terminal.
      json.disable(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM);
    }
  }

  /** Prints {@code records}; the caller flushes when the user should see them. */
  void write(List<ReadRecord> records) {
    for (ReadRecord record : records) {
      switch (format) {
        case LINES -> {
          out.write(record.body());
          out.write('\n');
        }
        case RAW -> out.write(record.body());
        case JSON -> writeJson(record);
      }
    }
  }

  void flush() {
    if (json != null) {
      try {
        json.flush();
      } catch (IOException e) {
        throw new Output.ReaderGone(e);
      }
    }
    out.flush();
  }

  private void writeJson(ReadRecord record) {
    try {
      json.writeStartObject();
      json.writeNumberField("seq", record.seq());
      json.writeNumberField("timestamp", record.timestampMillis());
      json.writeObjectFieldStart("headers");
      for (Map.Entry<String, String> header : new TreeMap<>(record.headers()).entrySet()) {
        json.writeStringField(header.getKey(), header.getValue());
      }
      json.writeEndObject();
      String text = utf8(record.body());
      if (text != null) {
        json.writeStringField("body", text);
      } else {
        json.writeStringField("body_b64", Base64.getEncoder().encodeToString(record.body()));
      }
      json.writeEndObject();
      json.flush();
      out.write('\n');
    } catch (IOException e) {
      throw new Output.ReaderGone(e);
    }
  }

  /** The body as text when it is well-formed UTF-8; null otherwise (then it goes as base64). */
  private static String utf8(byte[] body) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(body))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
