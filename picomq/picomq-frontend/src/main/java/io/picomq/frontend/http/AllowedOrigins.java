package io.picomq.frontend.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The web origins whose pages a browser lets call a listener (CORS). Written as a comma-separated
 * list ({@link #parse}):
 *
 * <ul>
 *   <li>{@code none}: no page of another origin may call (no CORS headers at all);
 *   <li>{@code *}: any page may (answered {@code Access-Control-Allow-Origin: *}; credentials are
 *       never allowed, so a browser sends no cookies with such calls);
 *   <li>{@code loopback}: pages served from this machine's loopback names, {@code http} or {@code
 *       https}, any port ({@code http://localhost:5173}, {@code http://127.0.0.1:3000}, {@code
 *       http://[::1]:8080}): a web app in development, never a page from the internet;
 *   <li>an origin, {@code https://app.example.com} or {@code http://app.example.com:8080}, or with
 *       {@code :*} for any port.
 * </ul>
 *
 * <p>Immutable; any thread.
 *
 * @param any whether every origin is allowed ({@code *})
 * @param patterns the allowed origins otherwise
 */
public record AllowedOrigins(boolean any, List<Pattern> patterns) {

  public static final AllowedOrigins NONE = new AllowedOrigins(false, List.of());
  public static final AllowedOrigins ANY = new AllowedOrigins(true, List.of());
  public static final AllowedOrigins LOOPBACK = parse("loopback");

  public AllowedOrigins {
    patterns = List.copyOf(patterns);
  }

  /**
   * An origin pattern: scheme, host (lower case, IPv6 in brackets) and port; an empty port is any.
   */
  public record Pattern(String scheme, String host, Optional<Integer> port) {
    boolean matches(Origin origin) {
      return scheme.equals(origin.scheme())
          && host.equals(origin.host())
          && (port.isEmpty() || port.get() == origin.port());
    }
  }

  /**
   * Parses a list as in the class comment.
   *
   * @throws IllegalArgumentException naming the entry that is not an origin
   */
  public static AllowedOrigins parse(String list) {
    List<Pattern> patterns = new ArrayList<>();
    boolean any = false;
    for (String raw : list.split(",", -1)) {
      String entry = raw.strip();
      switch (entry) {
        case "", "none" -> {}
        case "*" -> any = true;
        case "loopback" -> {
          for (String scheme : List.of("http", "https")) {
            for (String host : AllowedHosts.LOOPBACK_NAMES) {
              patterns.add(new Pattern(scheme, host, Optional.empty()));
            }
          }
        }
        default -> patterns.add(pattern(entry));
      }
    }
    return any ? ANY : new AllowedOrigins(false, patterns);
  }

  /** Whether no origin is allowed: the listener sends no CORS headers. */
  public boolean isNone() {
    return !any && patterns.isEmpty();
  }

  /** Whether a page of {@code origin} (an {@code Origin} header's value) may call. */
  public boolean allows(String origin) {
    if (any) {
      return true;
    }
    Optional<Origin> parsed = Origin.parse(origin);
    return parsed.isPresent() && patterns.stream().anyMatch(p -> p.matches(parsed.get()));
  }

  /**
   * Whether a page of {@code origin} is served by the listener the request reached under {@code
   * host} (its {@code Host}): the same name and port ({@code http://127.0.0.1:9090} and {@code
   * 127.0.0.1:9090}). Such a page is the listener's own (the dashboard), never another site's.
   */
  static boolean isSameOrigin(String origin, String host) {
    Optional<Origin> page = Origin.parse(origin);
    Optional<AllowedHosts.HostHeader> served =
        host == null ? Optional.empty() : AllowedHosts.HostHeader.parse(host);
    if (page.isEmpty() || served.isEmpty()) {
      return false;
    }
    int defaultPort = page.get().scheme().equals("https") ? 443 : 80;
    return page.get().host().equals(served.get().name())
        && page.get().port() == served.get().port().orElse(defaultPort);
  }

  private static Pattern pattern(String entry) {
    String text = entry.endsWith("/") ? entry.substring(0, entry.length() - 1) : entry;
    boolean anyPort = text.endsWith(":*");
    Optional<Origin> origin = Origin.parse(anyPort ? text.substring(0, text.length() - 2) : text);
    if (origin.isEmpty()) {
      throw new IllegalArgumentException(
          "CORS origin '"
              + entry
              + "' is not none, *, loopback or scheme://host[:port] (http or https, :* for any"
              + " port)");
    }
    return new Pattern(
        origin.get().scheme(),
        origin.get().host(),
        anyPort ? Optional.empty() : Optional.of(origin.get().port()));
  }

  /** An {@code Origin} header taken apart; the port is the scheme's default when not written. */
  record Origin(String scheme, String host, int port) {

    /** Empty for {@code null}, opaque origins and anything but {@code http(s)://host[:port]}. */
    static Optional<Origin> parse(String value) {
      if (value == null) {
        return Optional.empty();
      }
      String text = value.strip().toLowerCase(Locale.ROOT);
      int separator = text.indexOf("://");
      if (separator < 0) {
        return Optional.empty();
      }
      String scheme = text.substring(0, separator);
      int defaultPort;
      switch (scheme) {
        case "http" -> defaultPort = 80;
        case "https" -> defaultPort = 443;
        default -> {
          return Optional.empty();
        }
      }
      return AllowedHosts.HostHeader.parse(text.substring(separator + 3))
          .map(host -> new Origin(scheme, host.name(), host.port().orElse(defaultPort)));
    }
  }
}
