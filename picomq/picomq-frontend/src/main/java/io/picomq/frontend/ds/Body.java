package io.picomq.frontend.ds;

import io.picomq.stream.NewRecord;
import io.picomq.stream.StreamRecord;
import io.picomq.stream.StreamService;
import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * How records become a response body, and a request body becomes records, by the stream's content
 * type.
 */
enum Body {
  /** {@code application/json}: a JSON array of messages. */
  JSON,
  /** Anything else: the records' bytes, concatenated. */
  BYTES;

  static Body of(String contentType) {
    return isJson(contentType) ? JSON : BYTES;
  }

  static boolean isJson(String contentType) {
    return StreamService.mediaType(contentType).equals("application/json");
  }

  /** Whether SSE carries the stream as text; other streams go base64-encoded. */
  static boolean sseAsText(String contentType) {
    String type = StreamService.mediaType(contentType);
    return type.startsWith("text/") || type.equals("application/json");
  }

  /**
   * The records a request body holds in a stream of this content type: a JSON stream's body is one
   * message or an array of them (an empty array only when {@code create}), any other body is one
   * record; an empty body is none.
   */
  static List<NewRecord> records(byte[] body, String contentType, boolean create)
      throws InvalidJson {
    if (body.length == 0) {
      return List.of();
    }
    if (isJson(contentType)) {
      return JsonMessages.split(body, create).stream().map(NewRecord::of).toList();
    }
    return List.of(NewRecord.of(body));
  }

  byte[] render(List<StreamRecord> records) {
    if (this == JSON) {
      return JsonMessages.join(records.stream().map(StreamRecord::body).toList());
    }
    int size = 0;
    for (StreamRecord record : records) {
      size += record.body().length;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(size);
    records.forEach(record -> out.writeBytes(record.body()));
    return out.toByteArray();
  }
}
