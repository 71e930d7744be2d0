package io.picomq.client;

import java.util.UUID;

/**
 * An idempotent producer's identity. The server keeps, per stream and producer id, the highest
 * epoch and the next producer seq it expects, and answers a retried append as a duplicate instead
 * of writing it again.
 *
 * @param value non-empty
 */
public record ProducerId(String value) {

  public ProducerId {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("a producer id must not be empty");
    }
  }

  /** The given id. */
  public static ProducerId of(String value) {
    return new ProducerId(value);
  }

  /** A fresh random id (a UUID). */
  public static ProducerId random() {
    return new ProducerId(UUID.randomUUID().toString());
  }

  @Override
  public String toString() {
    return value;
  }
}
