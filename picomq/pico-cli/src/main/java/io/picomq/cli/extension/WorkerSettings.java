package io.picomq.cli.extension;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The worker's settings as Postgres passed them: every {@code pico.*} value, and what the node
 * needs to reach this server ({@code server.port}, {@code server.socket_directories}, {@code
 * server.os_user}). It turns them into the {@code pico serve} flags of the node to run.
 *
 * @param values setting name to value, as the worker read them (copied)
 */
public record WorkerSettings(Map<String, String> values) {
  private static final Set<String> LOG_LEVELS = Set.of("error", "warn", "info", "debug", "trace");

  public WorkerSettings {
    values = Map.copyOf(values);
  }

  /** Parses the worker's {@code name=value} strings; a value may contain '='. */
  public static WorkerSettings parse(String... settings) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String setting : settings) {
      int equals = setting.indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException("a worker setting is name=value, not '" + setting + "'");
      }
      values.put(setting.substring(0, equals), setting.substring(equals + 1));
    }
    return new WorkerSettings(values);
  }

  private String get(String name) {
    return values.getOrDefault(name, "").strip();
  }

  private int number(String name) {
    String value = get(name);
    if (value.isEmpty()) {
      return 0;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " is a whole number, not '" + value + "'", e);
    }
  }

  /** {@code pico.log}: the lowest level of node log lines (slf4j-simple's names). */
  public String logLevel() {
    String level = get("pico.log").toLowerCase(Locale.ROOT);
    if (level.isEmpty()) {
      return "info";
    }
    if (level.equals("warning")) {
      return "warn";
    }
    if (!LOG_LEVELS.contains(level)) {
      throw new IllegalArgumentException(
          "pico.log is error, warn, info, debug or trace, not '" + level + "'");
    }
    return level;
  }

  /**
   * The metadata database: {@code pico.database_url}, else {@code pico.database} on this server as
   * {@code pico.role} (default: the operating system user Postgres runs as, whom Debian's {@code
   * peer} authentication lets in), over the first Unix-socket directory, else over 127.0.0.1.
   */
  public String metaUrl() {
    String url = get("pico.database_url");
    if (!url.isEmpty()) {
      return url;
    }
    String role = get("pico.role").isEmpty() ? get("server.os_user") : get("pico.role");
    String database = get("pico.database").isEmpty() ? "postgres" : get("pico.database");
    if (role.isEmpty()) {
      throw new IllegalArgumentException(
          "pico.role is empty and the operating system user unknown");
    }
    int port = number("server.port");
    String base = "postgres://" + encode(role) + "@localhost:" + port + "/" + encode(database);
    String socketDirectory =
        Arrays.stream(get("server.socket_directories").split(","))
            .map(String::strip)
            .filter(directory -> directory.startsWith("/"))
            .findFirst()
            .orElse("");
    if (socketDirectory.isEmpty()) {
      return "postgres://" + encode(role) + "@127.0.0.1:" + port + "/" + encode(database);
    }
    return base
        + "?socketFactory="
        + UnixSocketFactory.class.getName()
        + "&socketFactoryArg="
        + encode(socketDirectory + "/.s.PGSQL." + port);
  }

  /** The {@code pico serve} command line of this worker's node. */
  public List<String> serveArguments() {
    if (get("pico.storage").isEmpty()) {
      throw new IllegalArgumentException("pico.storage is required");
    }
    List<String> args = new ArrayList<>();
    String protocol = get("pico.protocol");
    args.addAll(List.of("--protocol", protocol.isEmpty() ? "pico" : protocol, "serve"));
    args.addAll(List.of("--node-id", Integer.toString(number("pico.node_id"))));
    optional(args, "--cluster-id", "pico.cluster_id");
    optional(args, "--listen", "pico.listen");
    if (get("pico.admin_listen").isEmpty()) {
      args.add("--no-admin");
    } else {
      args.addAll(List.of("--admin-listen", get("pico.admin_listen")));
    }
    optional(args, "--http-address", "pico.advertised_url");
    args.addAll(List.of("--meta-url", metaUrl()));
    args.addAll(List.of("--storage", get("pico.storage")));
    // The WAL in the same database over the same socket (section 10), unless pico.wal names one.
    args.addAll(List.of("--wal", get("pico.wal").isEmpty() ? metaUrl() : get("pico.wal")));
    mebibytes(args, "--wal-cache-size", "pico.wal_cache_mb");
    mebibytes(args, "--block-cache-size", "pico.block_cache_mb");
    if (number("pico.wal_upload_interval_ms") > 0) {
      args.addAll(
          List.of(
              "--wal-upload-interval-ms", Integer.toString(number("pico.wal_upload_interval_ms"))));
    }
    // A fast shutdown closes the listeners at once; requests in flight get no drain.
    args.addAll(List.of("--shutdown-drain-sec", "0"));
    for (String word : get("pico.options").split("\\s+")) {
      if (!word.isEmpty()) {
        args.add(word);
      }
    }
    return List.copyOf(args);
  }

  private void optional(List<String> args, String flag, String setting) {
    if (!get(setting).isEmpty()) {
      args.addAll(List.of(flag, get(setting)));
    }
  }

  private void mebibytes(List<String> args, String flag, String setting) {
    if (number(setting) > 0) {
      args.addAll(List.of(flag, number(setting) + "MiB"));
    }
  }

  private static String encode(String text) {
    // URLEncoder writes a space as '+', which a URL's user and path read as a literal '+'.
    return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
