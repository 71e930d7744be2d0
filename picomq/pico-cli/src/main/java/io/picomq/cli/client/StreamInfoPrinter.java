package io.picomq.cli.client;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.picomq.client.StreamInfo;
import java.io.IOException;
import java.util.List;

/**
 * Prints {@link StreamInfo} for {@code head} and {@code ls}: readable lines, or JSON with the field
 * names of the Pico protocol's listing ({@code content_type}, {@code next_seq}, ...).
 */
final class StreamInfoPrinter {
  private StreamInfoPrinter() {}

  /** {@code head}: one {@code key value} line per field. */
  static void details(Output out, StreamInfo info) {
    out.line("name          " + info.name());
    out.line("content-type  " + info.contentType());
    out.line("start-seq     " + info.startSeq());
    out.line("next-seq      " + info.nextSeq());
    out.line("closed        " + info.closed());
    out.line("ttl           " + info.ttl().map(t -> t.toSeconds() + "s").orElse("-"));
    out.line("expires-at    " + info.expiresAt().map(Object::toString).orElse("-"));
  }

  /** {@code ls -l}: a header and one aligned row per stream. */
  static void table(Output out, List<StreamInfo> streams) {
    int width = "NAME".length();
    for (StreamInfo info : streams) {
      width = Math.max(width, info.name().length());
    }
    String row = "%-" + width + "s  %-28s  %10s  %10s  %s";
    out.line(
        String.format(
            java.util.Locale.ROOT, row, "NAME", "CONTENT-TYPE", "START", "NEXT", "CLOSED"));
    for (StreamInfo info : streams) {
      out.line(
          String.format(
              java.util.Locale.ROOT,
              row,
              info.name(),
              info.contentType(),
              info.startSeq(),
              info.nextSeq(),
              info.closed()));
    }
  }

  /** One JSON object on one line. */
  static void json(Output out, StreamInfo info) {
    try {
      JsonGenerator json = new JsonFactory().createGenerator(out.stream(), JsonEncoding.UTF8);
      json.disable(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM);
      json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      json.writeStartObject();
      json.writeStringField("name", info.name());
      json.writeStringField("content_type", info.contentType());
      json.writeNumberField("start_seq", info.startSeq());
      json.writeNumberField("next_seq", info.nextSeq());
      json.writeBooleanField("closed", info.closed());
      if (info.ttl().isPresent()) {
        json.writeNumberField("ttl", info.ttl().get().toSeconds());
      } else {
        json.writeNullField("ttl");
      }
      if (info.expiresAt().isPresent()) {
        json.writeStringField("expires_at", info.expiresAt().get().toString());
      } else {
        json.writeNullField("expires_at");
      }
      json.writeEndObject();
      json.close();
      out.write('\n');
    } catch (IOException e) {
      throw new Output.ReaderGone(e);
    }
  }
}
