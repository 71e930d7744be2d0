package io.picomq.frontend.pico;

import io.picomq.protocol.PicoMediaTypes;
import io.picomq.protocol.ReadBatch;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamRecord;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Locale;

/** How a read's records become its body ({@code format=}). */
enum ReadFormat {
  /** A JSON array of {@code {seq, timestamp, headers, body | body_b64}}. */
  JSON,
  /** A binary read batch ({@link ReadBatch}). */
  BINARY,
  /** The bodies, concatenated, in the stream's content type: no seqs, headers or boundaries. */
  RAW;

  /** The format a {@code format} parameter names; absent is {@link #JSON}. */
  static ReadFormat parse(String value) throws InvalidRequest {
    if (value == null) {
      return JSON;
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "json" -> JSON;
      case "binary" -> BINARY;
      case "raw" -> RAW;
      default -> throw new InvalidRequest("format is json, binary or raw, not \"" + value + "\"");
    };
  }

  String contentType(StreamDescription stream) {
    return switch (this) {
      case JSON -> "application/json";
      case BINARY -> PicoMediaTypes.BATCH_BINARY;
      case RAW -> stream.contentType();
    };
  }

  byte[] render(List<StreamRecord> records) {
    return switch (this) {
      case JSON ->
          Json.write(
              json -> {
                json.writeStartArray();
                for (StreamRecord record : records) {
                  Json.writeRecord(
                      json,
                      record.seq(),
                      record.timestampMillis(),
                      record.headers(),
                      record.body());
                }
                json.writeEndArray();
              });
      case BINARY ->
          ReadBatch.encode(
              records.stream()
                  .map(
                      record ->
                          ReadBatch.Entry.of(
                              record.seq(),
                              record.timestampMillis(),
                              record.headers(),
                              record.body()))
                  .toList());
      case RAW -> {
        int size = 0;
        for (StreamRecord record : records) {
          size += record.body().length;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(size);
        records.forEach(record -> out.writeBytes(record.body()));
        yield out.toByteArray();
      }
    };
  }
}
