package io.picomq.cli.client;

/** How {@code read} and {@code tail} print records ({@code --format}). */
enum RecordFormat {
  /** Each record's body followed by a newline: the inverse of {@code append}. */
  LINES,
  /**
   * One JSON object per line: {@code {"seq":..,"timestamp":..,"headers":{..},"body":".."}}, with
   * {@code body_b64} instead of {@code body} when the body is not UTF-8.
   */
  JSON,
  /** The bodies back to back, nothing added: binary records, or a whole-file record. */
  RAW
}
