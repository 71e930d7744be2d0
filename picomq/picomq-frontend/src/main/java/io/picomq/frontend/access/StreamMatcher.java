package io.picomq.frontend.access;

import io.picomq.frontend.http.StreamNames;
import java.util.Optional;

/**
 * Which streams a scope covers: one exact name ({@code orders}), or every name starting with a
 * prefix, written with a trailing {@code *} ({@code logs/*}); {@code *} alone is every stream.
 *
 * <p>Stream names start with {@code /} ({@link StreamNames}); a matcher may be written with or
 * without it, so {@code orders} and {@code /orders} are the same matcher, and {@code *} is the
 * prefix {@code /}. Examples: {@code logs/*} matches {@code /logs/a} and {@code /logs/a/b}, not
 * {@code /logs}; {@code logs*} matches {@code /logs} and {@code /logsx}.
 *
 * @param written the matcher as the scope wrote it (what is stored and shown)
 * @param target the exact name, or the prefix, with its leading {@code /}
 * @param prefix whether {@code target} is a prefix
 */
public record StreamMatcher(String written, String target, boolean prefix) {

  /**
   * The matcher {@code text} writes, or empty if it is none (empty, control characters, a {@code *}
   * not at the end, a bad name).
   */
  public static Optional<StreamMatcher> parse(String text) {
    if (text == null || text.isEmpty()) {
      return Optional.empty();
    }
    int star = text.indexOf('*');
    boolean prefix = star >= 0;
    if (prefix && star != text.length() - 1) {
      return Optional.empty();
    }
    String body = prefix ? text.substring(0, star) : text;
    String target = body.startsWith("/") ? body : "/" + body;
    for (int i = 0; i < target.length(); i++) {
      char c = target.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        return Optional.empty();
      }
    }
    if (!prefix && StreamNames.problem(target).isPresent()) {
      return Optional.empty();
    }
    return Optional.of(new StreamMatcher(text, target, prefix));
  }

  /** Whether the stream {@code name} (with its leading {@code /}) is covered. */
  public boolean matches(String name) {
    return prefix ? name.startsWith(target) : name.equals(target);
  }

  /** Whether every name {@code narrower} matches is matched here too. */
  public boolean covers(StreamMatcher narrower) {
    return prefix
        ? narrower.target.startsWith(target)
        : !narrower.prefix && matches(narrower.target);
  }

  /**
   * Whether every stream whose name starts with {@code listPrefix} is matched here. Every name
   * starts with {@code /}: the empty prefix asks for all of them (only {@code *} covers that), and
   * a prefix without the {@code /} for none (anything covers that).
   */
  public boolean coversEveryNameStartingWith(String listPrefix) {
    if (!listPrefix.isEmpty() && !listPrefix.startsWith("/")) {
      return true;
    }
    String names = listPrefix.isEmpty() ? "/" : listPrefix;
    return prefix && names.startsWith(target);
  }
}
