package io.picomq.frontend.access;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a request does, one fine verb per endpoint (the table is in website/pages/docs/security.md).
 * A scope names fine verbs or the coarse groups of {@link #parse}.
 */
public enum Verb {
  LIST,
  HEAD,
  READ,
  CREATE,
  APPEND,
  CLOSE,
  TRIM,
  FORK,
  DELETE,
  ADMIN_READ,
  ADMIN_WRITE,
  TOKENS;

  /**
   * The coarse groups. {@code read} is a group (list, head and read) as well as a fine verb; the
   * group wins, so a scope with {@code read} may also list and look at streams.
   */
  private static final Map<String, Set<Verb>> GROUPS =
      Map.of(
          "read", EnumSet.of(LIST, HEAD, READ),
          "write", EnumSet.of(CREATE, APPEND, CLOSE, TRIM, FORK),
          "admin", EnumSet.of(ADMIN_READ, ADMIN_WRITE, TOKENS),
          "all", EnumSet.allOf(Verb.class));

  /** The name in a scope: {@code append}, {@code admin.read}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '.');
  }

  /**
   * The verbs a scope's operation names: a group's members, or the one fine verb; empty if none.
   */
  public static Optional<Set<Verb>> parse(String operation) {
    Set<Verb> group = GROUPS.get(operation);
    if (group != null) {
      return Optional.of(group);
    }
    for (Verb verb : values()) {
      if (verb.wireName().equals(operation)) {
        return Optional.of(EnumSet.of(verb));
      }
    }
    return Optional.empty();
  }
}
