package io.picomq.frontend;

import java.util.Locale;

/** The wire protocol a listener speaks, chosen with {@code --protocol}. */
public enum ListenerProtocol {
  /** PicoMQ's native HTTP API. */
  PICO,
  /** The open Durable Streams protocol. */
  DS;

  /** Parses {@code pico} or {@code ds}, in any case. */
  public static ListenerProtocol parse(String value) {
    return switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "pico" -> PICO;
      case "ds" -> DS;
      default -> throw new IllegalArgumentException("protocol is pico or ds, not " + value);
    };
  }
}
