package io.picomq.frontend.access;

import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a token (or an anonymous request) may do: on which streams, which verbs, on which listeners,
 * until when. Built by {@link ScopeJson#parse}; the written operations are kept for showing the
 * scope back as it was given, {@link #verbs} is what they mean.
 *
 * @param streams the stream matchers (at least one)
 * @param operations the operations as written: fine verbs and groups
 * @param verbs the fine verbs {@code operations} add up to
 * @param audiences the listeners that accept it
 * @param expiresAt when it stops being valid; empty for never
 */
public record Scope(
    List<StreamMatcher> streams,
    List<String> operations,
    Set<Verb> verbs,
    Set<Audience> audiences,
    Optional<Instant> expiresAt) {

  public Scope {
    streams = List.copyOf(streams);
    operations = List.copyOf(operations);
    verbs = verbs.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(verbs));
    audiences = Set.copyOf(audiences);
  }

  /** Every stream, every verb, every listener, no expiry: what the root token holds. */
  public static final Scope ALL =
      new Scope(
          List.of(StreamMatcher.parse("*").orElseThrow()),
          List.of("all"),
          EnumSet.allOf(Verb.class),
          EnumSet.allOf(Audience.class),
          Optional.empty());

  /** Whether the scope allows {@code verb} on the stream {@code name}. */
  public boolean allows(Verb verb, String name) {
    return verbs.contains(verb) && streams.stream().anyMatch(m -> m.matches(name));
  }

  /** Whether the scope allows listing every stream whose name starts with {@code prefix}. */
  public boolean allowsListing(String prefix) {
    return verbs.contains(Verb.LIST)
        && streams.stream().anyMatch(m -> m.coversEveryNameStartingWith(prefix));
  }

  public boolean expiredAt(Instant now) {
    return expiresAt.isPresent() && !now.isBefore(expiresAt.get());
  }

  /**
   * The part of this scope that is wider than {@code parent}, in words, or empty when this scope is
   * narrower than or equal to it (what a holder of {@code parent} may issue). Nothing is clamped:
   * the caller refuses.
   */
  public Optional<String> widerThan(Scope parent) {
    for (StreamMatcher matcher : streams) {
      if (parent.streams.stream().noneMatch(p -> p.covers(matcher))) {
        return Optional.of(
            "streams: '" + matcher.written() + "' is not covered by " + written(parent.streams));
      }
    }
    Set<Verb> extra = EnumSet.allOf(Verb.class);
    extra.retainAll(verbs);
    extra.removeAll(parent.verbs);
    if (!extra.isEmpty()) {
      return Optional.of(
          "operations: "
              + extra.stream().map(Verb::wireName).collect(Collectors.joining(", "))
              + " not held by the issuing token");
    }
    for (Audience audience : audiences) {
      if (!parent.audiences.contains(audience)) {
        return Optional.of("audiences: " + audience.wireName() + " not held by the issuing token");
      }
    }
    if (parent.expiresAt.isPresent()) {
      if (expiresAt.isEmpty()) {
        return Optional.of(
            "expires_at: the issuing token expires at "
                + parent.expiresAt.get()
                + ", so an issued one must expire no later (it has no expiry)");
      }
      if (expiresAt.get().isAfter(parent.expiresAt.get())) {
        return Optional.of(
            "expires_at: "
                + expiresAt.get()
                + " is later than the issuing token's "
                + parent.expiresAt.get());
      }
    }
    return Optional.empty();
  }

  private static String written(List<StreamMatcher> matchers) {
    return matchers.stream()
        .map(m -> "'" + m.written() + "'")
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
