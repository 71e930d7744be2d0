package io.picomq.cli.config;

import io.picomq.client.BearerToken;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A client setting a profile may hold. Each has a flag, an environment variable and a default; the
 * names here are the keys of {@code pico config set}.
 */
public enum Setting {
  ENDPOINT("endpoint", "--endpoint", "PICO_ENDPOINT", "http://127.0.0.1:4437"),
  PROTOCOL("protocol", "--protocol", "PICO_PROTOCOL", "pico"),
  HTTP2("http2", "--http2", "PICO_HTTP2", "false"),
  ADMIN_ENDPOINT(
      "admin-endpoint", "--admin-endpoint", "PICO_ADMIN_ENDPOINT", "http://127.0.0.1:9090"),
  /** The bearer token itself. A secret: shown masked (see {@link #display}); default none. */
  TOKEN("token", "--token", "PICO_TOKEN", ""),
  /** A file holding the token, so the secret is in neither argv nor the environment. */
  TOKEN_FILE("token-file", "--token-file", "PICO_TOKEN_FILE", ""),
  /** A PEM file of CA certificates trusted for https:// endpoints; empty: the JDK's CAs. */
  CA_CERT("ca-cert", "--ca-cert", "PICO_CA_CERT", "");

  private final String key;
  private final String flag;
  private final String envVar;
  private final String defaultValue;

  Setting(String key, String flag, String envVar, String defaultValue) {
    this.key = key;
    this.flag = flag;
    this.envVar = envVar;
    this.defaultValue = defaultValue;
  }

  /** The name used in the config file and by {@code pico config set|get}. */
  public String key() {
    return key;
  }

  public String flag() {
    return flag;
  }

  public String envVar() {
    return envVar;
  }

  public String defaultValue() {
    return defaultValue;
  }

  /** The setting named {@code key}, if there is one. */
  public static Optional<Setting> byKey(String key) {
    for (Setting setting : values()) {
      if (setting.key.equals(key)) {
        return Optional.of(setting);
      }
    }
    return Optional.empty();
  }

  /** Every key, for messages that list them. */
  public static String keys() {
    StringBuilder keys = new StringBuilder();
    for (Setting setting : values()) {
      keys.append(keys.isEmpty() ? "" : ", ").append(setting.key);
    }
    return keys.toString();
  }

  /**
   * The settings that give the client's token: one of them at most, from the first level (flag,
   * variable, profile) that has either.
   */
  public static final List<Setting> CREDENTIALS = List.of(TOKEN, TOKEN_FILE);

  /** A token in the format PicoMQ issues: a 9-byte id and a 32-byte secret, base64url. */
  private static final Pattern ISSUED_TOKEN =
      Pattern.compile("[A-Za-z0-9_-]{12}\\.[A-Za-z0-9_-]{43}");

  /**
   * {@code value} as {@code pico config} may show it: a token becomes {@code <id>.***} (the id is
   * what {@code pico admin token list} shows, so the user can tell which token it is), or {@code
   * ***} when it is not in the issued format and so has no part that is safe to show.
   */
  public String display(String value) {
    if (this != TOKEN || value.isEmpty()) {
      return value;
    }
    return ISSUED_TOKEN.matcher(value).matches() ? value.substring(0, 12) + ".***" : "***";
  }

  /**
   * Checks a value wherever it came from and returns its normal form, so a bad value in a profile
   * fails with the same message as a bad flag. A token is never repeated in the message.
   *
   * @param source where the value came from, named in the error (e.g. {@code --endpoint})
   * @throws IllegalArgumentException naming the source and what is expected
   */
  public String validate(String value, String source) {
    String trimmed = value.strip();
    switch (this) {
      case ENDPOINT, ADMIN_ENDPOINT -> {
        try {
          URI uri = new URI(trimmed);
          String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
          if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new IllegalArgumentException(
                source + " wants an http:// or https:// URL, not '" + value + "'");
          }
        } catch (URISyntaxException e) {
          throw new IllegalArgumentException(
              source + " wants an http:// or https:// URL, not '" + value + "'", e);
        }
        return trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
      }
      case PROTOCOL -> {
        String protocol = trimmed.toLowerCase(Locale.ROOT);
        if (!protocol.equals("pico") && !protocol.equals("ds")) {
          throw new IllegalArgumentException(source + " is pico or ds, not '" + value + "'");
        }
        return protocol;
      }
      case CA_CERT -> {
        if (trimmed.isEmpty()) {
          throw new IllegalArgumentException(source + " wants a PEM file, not an empty value");
        }
        // Relative to where the command runs; a profile should name an absolute path.
        return trimmed;
      }
      case HTTP2 -> {
        String flagValue = trimmed.toLowerCase(Locale.ROOT);
        if (!flagValue.equals("true") && !flagValue.equals("false")) {
          throw new IllegalArgumentException(source + " is true or false, not '" + value + "'");
        }
        return flagValue;
      }
      case TOKEN -> {
        try {
          return new BearerToken(trimmed).value();
        } catch (IllegalArgumentException e) {
          // BearerToken's message names the position of a bad character, never the token.
          throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
        }
      }
      case TOKEN_FILE -> {
        if (trimmed.isEmpty()) {
          throw new IllegalArgumentException(source + " wants the path of a file");
        }
        return trimmed;
      }
    }
    throw new AssertionError(this);
  }
}
