package io.picomq.frontend.http;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which {@code Host} (HTTP/2: {@code :authority}) a listener answers: the guard against DNS
 * rebinding, where a page on {@code http://evil.example:4437} has its name resolve to this machine
 * and so reaches the listener with its own name in {@code Host}. The name is what the attack
 * carries, so the check is on names; ports are not checked unless an entry gives one (containers
 * and proxies remap ports, and a port proves nothing about the page that sent the request).
 *
 * <p>An entry is a name ({@code pico.example.com}, {@code 10.0.0.5}, {@code [fd00::5]}: any port)
 * or a name with a port ({@code pico.example.com:8443}: that port only). Names compare without case
 * and without a trailing dot. A request without a {@code Host} passes: browsers always send one,
 * and a client that sends none is no browser.
 *
 * <p>Immutable; any thread.
 *
 * @param any whether every host passes ({@code --allowed-hosts *}: the check is off)
 * @param names names allowed on any port, lower case, IPv6 in brackets
 * @param namesWithPort {@code name:port} pairs allowed on that port only
 * @param ipLiterals whether any IP literal passes (for a wildcard listen address: an IP literal in
 *     {@code Host} means the page came from that address itself, which DNS rebinding cannot fake)
 */
public record AllowedHosts(
    boolean any, Set<String> names, Set<String> namesWithPort, boolean ipLiterals) {

  /** The names of the loopback interface a browser on this machine may use. */
  public static final List<String> LOOPBACK_NAMES = List.of("localhost", "127.0.0.1", "[::1]");

  /** Every host passes. */
  public static final AllowedHosts ANY = new AllowedHosts(true, Set.of(), Set.of(), true);

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  /** A DNS name or IPv4 address, or an IPv6 address in brackets (lower case). */
  private static final Pattern NAME =
      Pattern.compile("[a-z0-9_-]+(\\.[a-z0-9_-]+)*|\\[[0-9a-f:.]+\\]");

  public AllowedHosts {
    names = Set.copyOf(names);
    namesWithPort = Set.copyOf(namesWithPort);
  }

  /**
   * What a listener bound to {@code bindHost} allows by default, plus {@code extra} entries: a
   * wildcard address ({@code 0.0.0.0}, {@code ::}) allows the loopback names and every IP literal;
   * a loopback address the loopback names; any other address or name itself. {@code extra} holds
   * the advertised address's host and the operator's {@code --allowed-hosts}; {@code *} among them
   * turns the check off.
   */
  public static AllowedHosts forListener(String bindHost, Collection<String> extra) {
    Objects.requireNonNull(bindHost, "bindHost");
    List<String> entries = new ArrayList<>(extra);
    if (entries.contains("*")) {
      return ANY;
    }
    boolean wildcard = isWildcard(bindHost);
    if (wildcard || isLoopback(bindHost)) {
      entries.addAll(LOOPBACK_NAMES);
    } else {
      entries.add(bindHost);
    }
    return of(entries, wildcard);
  }

  /** Exactly {@code entries} (see the class comment), and IP literals if {@code ipLiterals}. */
  public static AllowedHosts of(Collection<String> entries, boolean ipLiterals) {
    Set<String> names = new LinkedHashSet<>();
    Set<String> namesWithPort = new LinkedHashSet<>();
    for (String entry : entries) {
      HostHeader parsed =
          HostHeader.parse(entry)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "allowed host '" + entry + "' is not a name, IP or name:port"));
      if (parsed.port().isPresent()) {
        namesWithPort.add(parsed.name() + ":" + parsed.port().getAsInt());
      } else {
        names.add(parsed.name());
      }
    }
    return new AllowedHosts(false, names, namesWithPort, ipLiterals);
  }

  /** Whether a request with this {@code Host} value (null when absent) is answered. */
  public boolean allows(String host) {
    if (any || host == null || host.isEmpty()) {
      return true;
    }
    Optional<HostHeader> parsed = HostHeader.parse(host);
    if (parsed.isEmpty()) {
      return false;
    }
    String name = parsed.get().name();
    if (names.contains(name) || (ipLiterals && isIpLiteral(name))) {
      return true;
    }
    OptionalInt port = parsed.get().port();
    return port.isPresent() && namesWithPort.contains(name + ":" + port.getAsInt());
  }

  /** Whether {@code host} (as in a listen address) is the wildcard address. */
  static boolean isWildcard(String host) {
    String bare = unbracket(host);
    return bare.isEmpty() || bare.equals("0.0.0.0") || bare.equals("::") || bare.equals("*");
  }

  private static boolean isLoopback(String host) {
    String bare = unbracket(host).toLowerCase(Locale.ROOT);
    return bare.equals("localhost") || bare.startsWith("127.") || bare.equals("::1");
  }

  private static boolean isIpLiteral(String name) {
    return name.startsWith("[") || IPV4.matcher(name).matches();
  }

  private static String unbracket(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  /** A {@code Host} value taken apart: the name (lower case, IPv6 in brackets) and its port. */
  record HostHeader(String name, OptionalInt port) {

    /** Empty when the value is no {@code name[:port]}. */
    static Optional<HostHeader> parse(String value) {
      String text = value.strip().toLowerCase(Locale.ROOT);
      String name;
      String rest;
      if (text.startsWith("[")) {
        int close = text.indexOf(']');
        if (close < 0) {
          return Optional.empty();
        }
        name = text.substring(0, close + 1);
        rest = text.substring(close + 1);
      } else if (text.indexOf(':') != text.lastIndexOf(':')) {
        // A bare IPv6 address (as in a listen address): bracket it, as Host would.
        name = "[" + text + "]";
        rest = "";
      } else {
        int colon = text.indexOf(':');
        name = colon < 0 ? text : text.substring(0, colon);
        rest = colon < 0 ? "" : text.substring(colon);
      }
      if (name.endsWith(".")) {
        name = name.substring(0, name.length() - 1);
      }
      if (!NAME.matcher(name).matches()) {
        return Optional.empty();
      }
      if (rest.isEmpty()) {
        return Optional.of(new HostHeader(name, OptionalInt.empty()));
      }
      if (!rest.startsWith(":") || rest.length() == 1 || rest.length() > 6) {
        return Optional.empty();
      }
      for (int i = 1; i < rest.length(); i++) {
        if (rest.charAt(i) < '0' || rest.charAt(i) > '9') {
          return Optional.empty();
        }
      }
      int port = Integer.parseInt(rest.substring(1));
      return port > 65535
          ? Optional.empty()
          : Optional.of(new HostHeader(name, OptionalInt.of(port)));
    }
  }
}
