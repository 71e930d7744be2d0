package io.picomq.sql.backend;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The parsed form of {@code --meta-url}: which database holds the command log.
 *
 * <ul>
 *   <li>{@code sqlite::memory:} - a private in-memory database, gone when the process exits.
 *   <li>{@code sqlite:./data/meta.db} - a file; one node only (a second opener is refused).
 *   <li>{@code postgres://user:password@host:5432/db} (or {@code postgresql://}) - shared by every
 *       node of a cluster. User and password are percent-decoded; the port defaults to 5432; query
 *       parameters (for example {@code sslmode=require}) are passed to the driver unchanged.
 * </ul>
 *
 * <p>{@link #toString()} never shows a password, so a URL can be logged.
 */
public sealed interface MetaUrl {

  /** The URL as text with the password replaced by {@code ***}, safe for logs and errors. */
  String redacted();

  /** {@code sqlite::memory:}. */
  record SqliteMemory() implements MetaUrl {
    @Override
    public String redacted() {
      return "sqlite::memory:";
    }

    @Override
    public String toString() {
      return redacted();
    }
  }

  /** {@code sqlite:PATH}; a relative path is resolved against the working directory on open. */
  record SqliteFile(Path path) implements MetaUrl {
    public SqliteFile {
      if (path.toString().isEmpty()) {
        throw new IllegalArgumentException("SqliteFile path is empty");
      }
    }

    @Override
    public String redacted() {
      return "sqlite:" + path;
    }

    @Override
    public String toString() {
      return redacted();
    }
  }

  /**
   * {@code postgres://[user[:password]@]host[:port]/database[?key=value&...]}.
   *
   * @param host a host name, an IPv4 address, or an IPv6 address in brackets
   * @param parameters driver parameters in the order given, copied
   */
  record Postgres(
      String host,
      int port,
      String database,
      Optional<String> user,
      Optional<String> password,
      Map<String, String> parameters)
      implements MetaUrl {
    public Postgres {
      if (host.isEmpty() || database.isEmpty()) {
        throw new IllegalArgumentException("Postgres host and database must not be empty");
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("Postgres port " + port + " is not in 1..65535");
      }
      parameters = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /**
     * This database with {@code secret} as the password: one kept out of the URL, so that it shows
     * in no process list (from a file or the environment).
     *
     * @throws IllegalArgumentException if the URL names a password already (two would be a mistake)
     */
    public Postgres withPassword(String secret) {
      if (password.isPresent()) {
        throw new IllegalArgumentException(
            "the metadata URL " + redacted() + " holds a password already: give it once");
      }
      return new Postgres(host, port, database, user, Optional.of(secret), parameters);
    }

    /** The pgjdbc URL for this database; user and password travel as properties, not here. */
    public String jdbcUrl() {
      StringBuilder url =
          new StringBuilder("jdbc:postgresql://")
              .append(host)
              .append(':')
              .append(port)
              .append('/')
              .append(URLEncoder.encode(database, StandardCharsets.UTF_8));
      char separator = '?';
      for (Map.Entry<String, String> parameter : parameters.entrySet()) {
        url.append(separator)
            .append(URLEncoder.encode(parameter.getKey(), StandardCharsets.UTF_8))
            .append('=')
            .append(URLEncoder.encode(parameter.getValue(), StandardCharsets.UTF_8));
        separator = '&';
      }
      return url.toString();
    }

    @Override
    public String redacted() {
      StringBuilder text = new StringBuilder("postgres://");
      user.ifPresent(
          name -> {
            text.append(name);
            password.ifPresent(secret -> text.append(":***"));
            text.append('@');
          });
      text.append(host).append(':').append(port).append('/').append(database);
      char separator = '?';
      for (Map.Entry<String, String> parameter : parameters.entrySet()) {
        text.append(separator).append(parameter.getKey()).append('=').append(parameter.getValue());
        separator = '&';
      }
      return text.toString();
    }

    @Override
    public String toString() {
      return redacted();
    }
  }

  /**
   * Parses a {@code --meta-url}.
   *
   * @throws MalformedMetaUrlException naming the problem; the message never contains a password
   */
  static MetaUrl parse(String text) {
    String trimmed = text.strip();
    if (trimmed.equals("sqlite::memory:")) {
      return new SqliteMemory();
    }
    if (trimmed.startsWith("sqlite:")) {
      return parseSqliteFile(trimmed);
    }
    if (trimmed.startsWith("postgres://") || trimmed.startsWith("postgresql://")) {
      return parsePostgres(trimmed);
    }
    throw new MalformedMetaUrlException(redactUnparsed(trimmed), "unknown scheme");
  }

  private static MetaUrl parseSqliteFile(String text) {
    String location = text.substring("sqlite:".length());
    if (location.startsWith("//")) {
      throw new MalformedMetaUrlException(
          text, "write sqlite:PATH (for example sqlite:./data/meta.db), not sqlite://");
    }
    if (location.isBlank()) {
      throw new MalformedMetaUrlException(text, "the SQLite file path is empty");
    }
    if (location.startsWith(":")) {
      throw new MalformedMetaUrlException(text, "did you mean sqlite::memory:?");
    }
    try {
      return new SqliteFile(Path.of(location));
    } catch (InvalidPathException e) {
      throw new MalformedMetaUrlException(text, "invalid file path: " + e.getMessage());
    }
  }

  private static MetaUrl parsePostgres(String text) {
    String shown = redactUnparsed(text);
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw new MalformedMetaUrlException(
          shown, "not a valid URL (" + e.getReason() + "; percent-encode special characters)");
    }
    if (uri.getHost() == null) {
      throw new MalformedMetaUrlException(shown, "the host is missing or invalid");
    }
    if (uri.getRawFragment() != null) {
      throw new MalformedMetaUrlException(shown, "a '#' fragment has no meaning here");
    }
    int port = uri.getPort() == -1 ? 5432 : uri.getPort();
    if (port < 1 || port > 65535) {
      throw new MalformedMetaUrlException(shown, "port " + port + " is not in 1..65535");
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    if (path.length() <= 1) {
      throw new MalformedMetaUrlException(shown, "the database name is missing (…/database)");
    }
    String database = decode(path.substring(1), shown);
    if (database.contains("/")) {
      throw new MalformedMetaUrlException(shown, "the path must be just /database");
    }
    Optional<String> user = Optional.empty();
    Optional<String> password = Optional.empty();
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      String rawUser = colon < 0 ? userInfo : userInfo.substring(0, colon);
      if (rawUser.isEmpty()) {
        throw new MalformedMetaUrlException(shown, "the user name before '@' is empty");
      }
      user = Optional.of(decode(rawUser, shown));
      if (colon >= 0) {
        password = Optional.of(decode(userInfo.substring(colon + 1), shown));
      }
    }
    return new MetaUrl.Postgres(
        uri.getHost(), port, database, user, password, parameters(uri.getRawQuery(), shown));
  }

  private static Map<String, String> parameters(String rawQuery, String shown) {
    Map<String, String> parameters = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return parameters;
    }
    for (String pair : rawQuery.split("&", -1)) {
      int equals = pair.indexOf('=');
      if (equals <= 0) {
        throw new MalformedMetaUrlException(
            shown, "query parameter '" + pair + "' is not key=value");
      }
      String key = decode(pair.substring(0, equals), shown);
      if (parameters.put(key, decode(pair.substring(equals + 1), shown)) != null) {
        throw new MalformedMetaUrlException(shown, "query parameter '" + key + "' is repeated");
      }
    }
    return parameters;
  }

  private static String decode(String raw, String shown) {
    try {
      // URLDecoder turns '+' into a space; in a URL's user, password or path '+' is literal.
      return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new MalformedMetaUrlException(shown, "bad percent-encoding in '" + raw + "'");
    }
  }

  /** Hides what may be a password in text we could not parse: everything between ':' and '@'. */
  private static String redactUnparsed(String text) {
    int scheme = text.indexOf("://");
    int at = text.lastIndexOf('@');
    if (scheme < 0 || at < scheme) {
      return text;
    }
    int colon = text.indexOf(':', scheme + 3);
    if (colon < 0 || colon > at) {
      return text;
    }
    return text.substring(0, colon + 1) + "***" + text.substring(at);
  }
}
