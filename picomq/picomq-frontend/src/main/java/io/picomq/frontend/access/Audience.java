package io.picomq.frontend.access;

import java.util.Locale;
import java.util.Optional;

/** Which listener may accept a token: a protocol listener of either kind, or the admin listener. */
public enum Audience {
  PICO,
  DURABLE_STREAMS,
  ADMIN;

  /** The name in a scope: {@code pico}, {@code durable_streams}, {@code admin}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<Audience> parse(String name) {
    for (Audience audience : values()) {
      if (audience.wireName().equals(name)) {
        return Optional.of(audience);
      }
    }
    return Optional.empty();
  }
}
