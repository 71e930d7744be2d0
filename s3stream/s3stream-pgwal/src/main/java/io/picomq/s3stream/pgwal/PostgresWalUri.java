package io.picomq.s3stream.pgwal;

import io.picomq.s3stream.wal.WalConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where a Postgres WAL lives and how it batches: {@code
 * postgres://[user[:password]@]host[:port]/database[?parameter=value&...]} ({@code postgresql://}
 * too). User, password and database are percent-decoded; the port defaults to 5432.
 *
 * <p>Parameters (sizes in bytes or with {@code KiB}, {@code MiB}, {@code GiB}; durations in whole
 * milliseconds or with {@code us}, {@code ms}, {@code s}, as {@link WalConfig#fromUri} reads them):
 *
 * <ul>
 *   <li>{@code segmentBytes} (64 MiB) and {@code segments} (8): the ring of slot tables; {@code
 *       (segments - 1) * segmentBytes} must exceed {@code maxUnflushedBytes};
 *   <li>{@code batchInterval} (1 ms), {@code maxBytesInBatch} (1 MiB), {@code maxInflight} (4,
 *       inserts in flight, each its own transaction), {@code maxUnflushedBytes} (128 MiB): the
 *       group commit, as for the object WAL;
 *   <li>{@code allowUnsafe} ({@code false}): start even on a server with {@code fsync = off};
 *   <li>{@code sslmode}, {@code socketFactory}, {@code socketFactoryArg}: passed to the driver
 *       unchanged (the last two reach a server over its Unix socket, as the Postgres extension
 *       does).
 * </ul>
 *
 * A malformed URI, an unknown or repeated parameter, or a value out of range is an {@link
 * IllegalArgumentException} whose message names the parameter and never shows the password. {@link
 * #toString()} is {@link #redacted()}.
 *
 * @param host a host name, an IPv4 address, or an IPv6 address in brackets
 * @param port the server's port
 * @param database the database holding the WAL tables
 * @param user the user, if the URI names one
 * @param password the password, if the URI has one
 * @param driver the driver parameters given ({@code sslmode}, {@code socketFactory}, {@code
 *     socketFactoryArg}), by name
 * @param segmentBytes bytes of WAL offsets per segment; segment {@code g} lives in slot table
 *     {@code g % segments}
 * @param segments slot tables in the ring
 * @param batchInterval a batch is sealed once this long has passed since the previous seal
 * @param maxBytesInBatch a batch is sealed once its framed records reach this many bytes
 * @param maxInflight batches being inserted at once
 * @param maxUnflushedBytes appends are refused as over capacity beyond this many unstored bytes
 * @param allowUnsafe whether a server with {@code fsync = off} is accepted
 */
public record PostgresWalUri(
    String host,
    int port,
    String database,
    Optional<String> user,
    Optional<String> password,
    Map<String, String> driver,
    long segmentBytes,
    int segments,
    Duration batchInterval,
    long maxBytesInBatch,
    int maxInflight,
    long maxUnflushedBytes,
    boolean allowUnsafe) {

  public static final String SEGMENT_BYTES = "segmentBytes";
  public static final String SEGMENTS = "segments";
  public static final String BATCH_INTERVAL = WalConfig.BATCH_INTERVAL;
  public static final String MAX_BYTES_IN_BATCH = WalConfig.MAX_BYTES_IN_BATCH;
  public static final String MAX_INFLIGHT = "maxInflight";
  public static final String MAX_UNFLUSHED_BYTES = WalConfig.MAX_UNFLUSHED_BYTES;
  public static final String ALLOW_UNSAFE = "allowUnsafe";
  public static final String SSL_MODE = "sslmode";
  public static final String SOCKET_FACTORY = "socketFactory";
  public static final String SOCKET_FACTORY_ARG = "socketFactoryArg";

  /** Parameters that go to the driver as they are. */
  private static final Set<String> DRIVER_PARAMETERS =
      Set.of(SSL_MODE, SOCKET_FACTORY, SOCKET_FACTORY_ARG);

  /** The name every WAL connection reports ({@code pg_stat_activity.application_name}). */
  public static final String APPLICATION_NAME = "picomq-wal";

  static final long MIN_SEGMENT_BYTES = 4L << 10;
  static final long MAX_SEGMENT_BYTES = 1L << 40;
  static final int MAX_SEGMENTS = 1024;

  /** More would hold too many connections: the pool has {@code maxInflight + 2}. */
  static final int MAX_INFLIGHT_LIMIT = 64;

  private static final Set<String> PARAMETERS =
      Set.of(
          SEGMENT_BYTES,
          SEGMENTS,
          BATCH_INTERVAL,
          MAX_BYTES_IN_BATCH,
          MAX_INFLIGHT,
          MAX_UNFLUSHED_BYTES,
          ALLOW_UNSAFE,
          SSL_MODE,
          SOCKET_FACTORY,
          SOCKET_FACTORY_ARG);

  private static final Set<String> SSL_MODES =
      Set.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");

  public PostgresWalUri {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    driver = new TreeMap<>(Objects.requireNonNull(driver, "driver"));
    if (!DRIVER_PARAMETERS.containsAll(driver.keySet())) {
      throw new IllegalArgumentException("not a driver parameter: " + driver.keySet());
    }
    driver = Collections.unmodifiableMap(driver);
    Objects.requireNonNull(batchInterval, "batchInterval");
    if (host.isEmpty()) {
      throw new IllegalArgumentException("the host of the WAL URI is empty");
    }
    if (database.isEmpty()) {
      throw new IllegalArgumentException("the database of the WAL URI is empty");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is not in 1..65535");
    }
    Optional.ofNullable(driver.get(SSL_MODE))
        .ifPresent(
            mode -> {
              if (!SSL_MODES.contains(mode)) {
                throw new IllegalArgumentException(
                    SSL_MODE + "=" + mode + " is not one of " + String.join(", ", SSL_MODES));
              }
            });
    inRange(SEGMENT_BYTES, segmentBytes, MIN_SEGMENT_BYTES, MAX_SEGMENT_BYTES);
    inRange(SEGMENTS, segments, 2, MAX_SEGMENTS);
    if (batchInterval.isNegative() || batchInterval.compareTo(WalConfig.MAX_BATCH_INTERVAL) > 0) {
      throw new IllegalArgumentException(
          BATCH_INTERVAL
              + " must be between 0 and "
              + WalConfig.MAX_BATCH_INTERVAL
              + ": "
              + batchInterval);
    }
    inRange(MAX_BYTES_IN_BATCH, maxBytesInBatch, 1, WalConfig.MAX_BYTES_IN_BATCH_LIMIT);
    inRange(MAX_INFLIGHT, maxInflight, 1, MAX_INFLIGHT_LIMIT);
    if (maxUnflushedBytes < maxBytesInBatch) {
      throw new IllegalArgumentException(
          MAX_UNFLUSHED_BYTES
              + " ("
              + maxUnflushedBytes
              + ") must be at least "
              + MAX_BYTES_IN_BATCH
              + " ("
              + maxBytesInBatch
              + ")");
    }
    RingGeometry.checkCapacity(segmentBytes, segments, maxUnflushedBytes);
  }

  /** The defaults: 64 MiB x 8 segments, 1 ms, 1 MiB, 4 in flight, 128 MiB, safe. */
  static PostgresWalUri defaults(
      String host, int port, String database, Optional<String> user, Optional<String> password) {
    return new PostgresWalUri(
        host,
        port,
        database,
        user,
        password,
        Map.of(),
        64L << 20,
        8,
        Duration.ofMillis(1),
        1L << 20,
        4,
        128L << 20,
        false);
  }

  /**
   * Parses a WAL URI.
   *
   * @throws IllegalArgumentException naming what is wrong; the message never shows the password
   */
  public static PostgresWalUri parse(String uri) {
    Objects.requireNonNull(uri, "uri");
    String text = uri.strip();
    String shown = redactUnparsed(text);
    if (!text.startsWith("postgres://") && !text.startsWith("postgresql://")) {
      throw new IllegalArgumentException(
          "a Postgres WAL URI starts with postgres:// or postgresql://: " + shown);
    }
    URI parsed;
    try {
      parsed = new URI(text);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "not a valid URI (" + e.getReason() + "; percent-encode special characters): " + shown);
    }
    if (parsed.getHost() == null) {
      throw new IllegalArgumentException("the host is missing or invalid: " + shown);
    }
    if (parsed.getRawFragment() != null) {
      throw new IllegalArgumentException("a '#' fragment has no meaning here: " + shown);
    }
    String path = parsed.getRawPath() == null ? "" : parsed.getRawPath();
    if (path.length() <= 1) {
      throw new IllegalArgumentException("the database name is missing (.../database): " + shown);
    }
    String database = decode(path.substring(1), shown);
    if (database.contains("/")) {
      throw new IllegalArgumentException("the path must be just /database: " + shown);
    }
    Optional<String> user = Optional.empty();
    Optional<String> password = Optional.empty();
    String userInfo = parsed.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      String rawUser = colon < 0 ? userInfo : userInfo.substring(0, colon);
      if (rawUser.isEmpty()) {
        throw new IllegalArgumentException("the user name before '@' is empty: " + shown);
      }
      user = Optional.of(decode(rawUser, shown));
      if (colon >= 0) {
        password = Optional.of(decode(userInfo.substring(colon + 1), shown));
      }
    }
    int port = parsed.getPort() == -1 ? 5432 : parsed.getPort();
    PostgresWalUri base = defaults(parsed.getHost(), port, database, user, password);
    return base.with(parameters(parsed.getRawQuery(), shown));
  }

  /** The URI without the password, for logs and errors. */
  public String redacted() {
    StringBuilder text = new StringBuilder("postgres://");
    user.ifPresent(
        name -> {
          text.append(name);
          password.ifPresent(secret -> text.append(":***"));
          text.append('@');
        });
    text.append(host).append(':').append(port).append('/').append(database);
    text.append('?').append(SEGMENT_BYTES).append('=').append(segmentBytes);
    text.append('&').append(SEGMENTS).append('=').append(segments);
    text.append('&').append(BATCH_INTERVAL).append('=').append(batchInterval.toNanos() / 1000);
    text.append("us");
    text.append('&').append(MAX_BYTES_IN_BATCH).append('=').append(maxBytesInBatch);
    text.append('&').append(MAX_INFLIGHT).append('=').append(maxInflight);
    text.append('&').append(MAX_UNFLUSHED_BYTES).append('=').append(maxUnflushedBytes);
    text.append('&').append(ALLOW_UNSAFE).append('=').append(allowUnsafe);
    driver.forEach(
        (name, value) -> text.append('&').append(name).append('=').append(encode(value)));
    return text.toString();
  }

  /**
   * The pgjdbc URL of the database, with the WAL's application name; user and password are not in
   * it (they travel as connection properties).
   */
  public String jdbcUrl() {
    StringBuilder url =
        new StringBuilder("jdbc:postgresql://")
            .append(host)
            .append(':')
            .append(port)
            .append('/')
            .append(URLEncoder.encode(database, StandardCharsets.UTF_8))
            .append("?ApplicationName=")
            .append(APPLICATION_NAME);
    driver.forEach((name, value) -> url.append('&').append(name).append('=').append(encode(value)));
    return url.toString();
  }

  /** The group commit settings, in the form the WAL batcher takes. */
  public WalConfig walConfig() {
    return WalConfig.builder()
        .batchInterval(batchInterval)
        .maxBytesInBatch(maxBytesInBatch)
        .maxUnflushedBytes(maxUnflushedBytes)
        .maxInflightUploadCount(maxInflight)
        // Fencing is part of every insert: there is no separate fence check to turn off.
        .fenceCheck(false)
        .build();
  }

  /** The ring the WAL writes into. */
  RingGeometry geometry() {
    return new RingGeometry(segmentBytes, segments);
  }

  @Override
  public String toString() {
    return redacted();
  }

  private PostgresWalUri with(Map<String, String> parameters) {
    for (String name : parameters.keySet()) {
      if (!PARAMETERS.contains(name)) {
        throw new IllegalArgumentException(
            "unknown parameter '"
                + name
                + "' in the WAL URI (known: "
                + String.join(", ", PARAMETERS.stream().sorted().toList())
                + ")");
      }
    }
    return new PostgresWalUri(
        host,
        port,
        database,
        user,
        password,
        driverParameters(parameters),
        bytes(parameters, SEGMENT_BYTES, segmentBytes),
        count(parameters, SEGMENTS, segments),
        parameters.containsKey(BATCH_INTERVAL)
            ? WalConfig.parseDuration(BATCH_INTERVAL, parameters.get(BATCH_INTERVAL))
            : batchInterval,
        bytes(parameters, MAX_BYTES_IN_BATCH, maxBytesInBatch),
        count(parameters, MAX_INFLIGHT, maxInflight),
        bytes(parameters, MAX_UNFLUSHED_BYTES, maxUnflushedBytes),
        parameters.containsKey(ALLOW_UNSAFE)
            ? WalConfig.parseBoolean(ALLOW_UNSAFE, parameters.get(ALLOW_UNSAFE))
            : allowUnsafe);
  }

  private static Map<String, String> driverParameters(Map<String, String> parameters) {
    Map<String, String> driver = new TreeMap<>();
    parameters.forEach(
        (name, value) -> {
          if (DRIVER_PARAMETERS.contains(name)) {
            driver.put(name, value);
          }
        });
    return driver;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private static long bytes(Map<String, String> parameters, String name, long otherwise) {
    return parameters.containsKey(name)
        ? WalConfig.parseBytes(name, parameters.get(name))
        : otherwise;
  }

  private static int count(Map<String, String> parameters, String name, int otherwise) {
    return parameters.containsKey(name)
        ? WalConfig.parseCount(name, parameters.get(name))
        : otherwise;
  }

  private static void inRange(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + " must be between " + min + " and " + max + ": " + value);
    }
  }

  private static Map<String, String> parameters(String rawQuery, String shown) {
    Map<String, String> parameters = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return parameters;
    }
    for (String pair : rawQuery.split("&", -1)) {
      int equals = pair.indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException(
            "query parameter '" + pair + "' is not name=value: " + shown);
      }
      String name = decode(pair.substring(0, equals), shown);
      if (parameters.put(name, decode(pair.substring(equals + 1), shown)) != null) {
        throw new IllegalArgumentException(
            "parameter '" + name + "' is given twice in the WAL URI: " + shown);
      }
    }
    return parameters;
  }

  private static String decode(String raw, String shown) {
    try {
      // URLDecoder turns '+' into a space; in a URI's user, password or path '+' is literal.
      return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      // Not the raw text: it may be the password.
      throw new IllegalArgumentException("bad percent-encoding in the WAL URI: " + shown);
    }
  }

  /** Hides what may be a password in text that did not parse: between the ':' and the '@'. */
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
