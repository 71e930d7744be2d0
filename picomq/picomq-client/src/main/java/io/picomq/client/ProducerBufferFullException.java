package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@link ProducerSession#send} found no room within {@link ProducerOptions#maxBlock()}: the bytes
 * in flight stayed above {@link ProducerOptions#maxInFlightBytes()}. Status 0, error code {@code
 * buffer_full}. The record was not queued.
 */
public class ProducerBufferFullException extends PicoException {

  /** An error as the server (or the client) reported it; see {@link PicoException}. */
  public ProducerBufferFullException(
      int status, String errorCode, String message, JsonNode body, Throwable cause) {
    super(status, errorCode, message, body, cause);
  }

  /** No room for a record of {@code bytes} bytes. */
  public ProducerBufferFullException(String message) {
    this(0, "buffer_full", message, null, null);
  }
}
