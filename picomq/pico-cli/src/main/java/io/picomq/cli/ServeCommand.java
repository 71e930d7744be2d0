package io.picomq.cli;

import io.picomq.frontend.ListenerProtocol;
import io.picomq.node.AccessSettings;
import io.picomq.node.ConnectionSettings;
import io.picomq.node.ExposureSettings;
import io.picomq.node.NodeConfig;
import io.picomq.node.NodeSupervisor;
import io.picomq.node.Secret;
import io.picomq.node.TlsSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code pico serve}: runs a node until SIGINT/SIGTERM, then stops it gracefully; SIGHUP reads the
 * TLS certificate files again. Every flag has a {@code PICO_*} environment variable; a flag wins
 * over its variable.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    // The root command's list shows the header; the description is shown by 'serve --help'.
    header = "Run a PicoMQ node (SQLite + file:// under ./data by default).",
    description = {
      "Run a PicoMQ node. With no flags: SQLite metadata and file storage under ./data,",
      "the Pico protocol on 127.0.0.1:4437 and the admin API on 127.0.0.1:9090."
    })
final class ServeCommand implements Callable<Integer> {

  @ParentCommand Pico pico;

  @Spec CommandSpec spec;

  /** Where {@code PICO_META_PASSWORD} is read (tests pass their own). */
  Map<String, String> environment = System.getenv();

  @Option(
      names = "--node-id",
      defaultValue = "${env:PICO_NODE_ID:-1}",
      description = "Stable node id (PICO_NODE_ID, default 1).")
  int nodeId;

  @Option(
      names = "--node-epoch",
      defaultValue = "${env:PICO_NODE_EPOCH}",
      description = "This process's epoch (PICO_NODE_EPOCH, default: now in ms).")
  Long nodeEpoch;

  @Option(
      names = "--cluster-id",
      defaultValue = "${env:PICO_CLUSTER_ID:-picomq}",
      description = "Cluster name (PICO_CLUSTER_ID).")
  String clusterId;

  @Option(
      names = "--slots",
      defaultValue = "${env:PICO_SLOTS:-1}",
      description = "Placement slots (PICO_SLOTS).")
  int slots;

  @Option(
      names = "--listen",
      defaultValue = "${env:PICO_LISTEN:-127.0.0.1:4437}",
      description = "Protocol listener host:port (PICO_LISTEN).")
  String listen;

  @Option(
      names = "--admin-listen",
      defaultValue = "${env:PICO_ADMIN_LISTEN:-127.0.0.1:9090}",
      description = "Admin listener host:port (PICO_ADMIN_LISTEN).")
  String adminListen;

  @Option(
      names = "--access-control",
      arity = "0..1",
      fallbackValue = "on",
      defaultValue = "${env:PICO_ACCESS_CONTROL:-off}",
      description =
          "on: every request needs a bearer token (or the stored anonymous scope); off (the"
              + " default) serves anyone who can connect (PICO_ACCESS_CONTROL).")
  String accessControl;

  @Option(
      names = "--root-token-file",
      defaultValue = "${env:PICO_ROOT_TOKEN_FILE}",
      description =
          "A file holding the root token (every right; the node makes sure it exists), so that it"
              + " is in no command line (PICO_ROOT_TOKEN_FILE); or the token itself in the"
              + " environment (PICO_ROOT_TOKEN).")
  Path rootTokenFile;

  @Option(
      names = "--insecure",
      defaultValue = "${env:PICO_INSECURE:-false}",
      description =
          "Let a listener bind beyond loopback with access control off; without it such a node"
              + " refuses to start (PICO_INSECURE).")
  boolean insecure;

  @Option(
      names = "--no-admin",
      defaultValue = "${env:PICO_NO_ADMIN:-false}",
      description = "Run no admin listener (PICO_NO_ADMIN).")
  boolean noAdmin;

  @Option(
      names = "--http-address",
      defaultValue = "${env:PICO_HTTP_ADDRESS}",
      description =
          "Address other nodes redirect clients to (PICO_HTTP_ADDRESS, default http://{listen},"
              + " https:// with --tls-cert).")
  String httpAddress;

  @Option(
      names = "--backlog",
      defaultValue = "${env:PICO_BACKLOG:-1024}",
      description = "Accept backlog (PICO_BACKLOG).")
  int backlog;

  @Option(
      names = "--header-timeout-sec",
      defaultValue = "${env:PICO_HEADER_TIMEOUT_SEC:-10}",
      description =
          "Close a connection whose request headers are not complete this long after their first byte (PICO_HEADER_TIMEOUT_SEC).")
  long headerTimeoutSec;

  @Option(
      names = "--idle-timeout-sec",
      defaultValue = "${env:PICO_IDLE_TIMEOUT_SEC:-60}",
      description =
          "Close a connection with no request in flight after this long (PICO_IDLE_TIMEOUT_SEC).")
  long idleTimeoutSec;

  @Option(
      names = "--max-connections",
      defaultValue = "${env:PICO_MAX_CONNECTIONS:-auto}",
      description =
          "Open connections of the protocol listener at most; auto: 10000, or less under a low file descriptor limit (PICO_MAX_CONNECTIONS).")
  String maxConnections;

  @Option(
      names = "--admin-max-connections",
      defaultValue = "${env:PICO_ADMIN_MAX_CONNECTIONS:-64}",
      description = "Open connections of the admin listener at most (PICO_ADMIN_MAX_CONNECTIONS).")
  int adminMaxConnections;

  @Option(
      names = "--shutdown-drain-sec",
      defaultValue = "${env:PICO_SHUTDOWN_DRAIN_SEC:-0}",
      description = "Seconds to let requests finish on shutdown (PICO_SHUTDOWN_DRAIN_SEC).")
  long shutdownDrainSec;

  @Option(
      names = "--meta-url",
      defaultValue = "${env:PICO_META_URL:-sqlite:./data/meta.db}",
      description =
          "Metadata database: sqlite::memory:, sqlite:PATH, postgres://user@host:port/db; a"
              + " Postgres password belongs in PICO_META_PASSWORD or --meta-password-file, where"
              + " the process list does not show it (PICO_META_URL).")
  String metaUrl;

  @Option(
      names = "--meta-password-file",
      defaultValue = "${env:PICO_META_PASSWORD_FILE}",
      description =
          "File holding the Postgres password when --meta-url has none, so it shows in no process"
              + " list; or set PICO_META_PASSWORD (PICO_META_PASSWORD_FILE).")
  Path metaPasswordFile;

  @Option(
      names = "--allowed-hosts",
      defaultValue = "${env:PICO_ALLOWED_HOSTS:-}",
      description =
          "More Host names both listeners answer, comma-separated: name (any port) or name:port;"
              + " * turns the check off. Always answered: the listen address's names (loopback:"
              + " localhost, 127.0.0.1, [::1]; a wildcard address: those and any IP) and the"
              + " --http-address host. Others get 421, against DNS rebinding (PICO_ALLOWED_HOSTS).")
  String allowedHosts;

  @Option(
      names = "--cors-origins",
      defaultValue = "${env:PICO_CORS_ORIGINS:-loopback}",
      description =
          "Origins whose web pages may call the protocol listener, comma-separated:"
              + " https://app.example.com, http://host:*, loopback (pages served from this"
              + " machine), * (any, never with credentials) or none (PICO_CORS_ORIGINS, default"
              + " loopback).")
  String corsOrigins;

  @Option(
      names = "--admin-cors-origins",
      defaultValue = "${env:PICO_ADMIN_CORS_ORIGINS:-none}",
      description =
          "Origins whose web pages may call the admin listener, as --cors-origins"
              + " (PICO_ADMIN_CORS_ORIGINS, default none).")
  String adminCorsOrigins;

  @Option(
      names = "--tls-cert",
      defaultValue = "${env:PICO_TLS_CERT}",
      paramLabel = "FILE",
      description =
          "PEM certificate chain (the server's first): both listeners serve TLS, h2 and http/1.1"
              + " through ALPN; SIGHUP reads the files again (PICO_TLS_CERT).")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      defaultValue = "${env:PICO_TLS_KEY}",
      paramLabel = "FILE",
      description = "PEM private key of --tls-cert, PKCS#8, optionally encrypted (PICO_TLS_KEY).")
  Path tlsKey;

  @Option(
      names = "--tls-key-password-file",
      defaultValue = "${env:PICO_TLS_KEY_PASSWORD_FILE}",
      paramLabel = "FILE",
      description =
          "File holding the password of an encrypted --tls-key; or set PICO_TLS_KEY_PASSWORD"
              + " (PICO_TLS_KEY_PASSWORD_FILE).")
  Path tlsKeyPasswordFile;

  @Option(
      names = "--storage",
      defaultValue = "${env:PICO_STORAGE:--2@file://./data/objects}",
      description =
          "Data bucket, e.g. 0@s3://bucket?region=..., -2@file://./data/objects (PICO_STORAGE).")
  String storage;

  @Option(
      names = "--wal",
      defaultValue = "${env:PICO_WAL}",
      description =
          "WAL: a bucket with WAL parameters, or postgres://user@host:port/db for the WAL in"
              + " Postgres tables (PICO_WAL; default: the data bucket's storage under the next"
              + " id).")
  String wal;

  @Option(
      names = "--routing",
      defaultValue = "${env:PICO_ROUTING:-redirect}",
      description = "redirect or local (PICO_ROUTING).")
  String routing;

  @Option(
      names = "--long-poll-timeout-sec",
      defaultValue = "${env:PICO_LONG_POLL_TIMEOUT_SEC:-25}",
      description = "Long-poll timeout (PICO_LONG_POLL_TIMEOUT_SEC).")
  long longPollTimeoutSec;

  @Option(
      names = "--sse-max-duration-sec",
      defaultValue = "${env:PICO_SSE_MAX_DURATION_SEC:-55}",
      description = "SSE response lifetime (PICO_SSE_MAX_DURATION_SEC).")
  long sseMaxDurationSec;

  @Option(
      names = "--max-chunk-size",
      defaultValue = "${env:PICO_MAX_CHUNK_SIZE:-65536}",
      description = "Body bytes per read response (PICO_MAX_CHUNK_SIZE).")
  String maxChunkSize;

  @Option(
      names = "--request-timeout-sec",
      defaultValue = "${env:PICO_REQUEST_TIMEOUT_SEC:-30}",
      description =
          "Longest wait on storage or the metadata log before a request answers 503"
              + " (PICO_REQUEST_TIMEOUT_SEC).")
  long requestTimeoutSec;

  @Option(
      names = "--node-ttl",
      defaultValue = "${env:PICO_NODE_TTL:-10s}",
      description =
          "How long one renewal of this node's liveness row keeps it alive, e.g. 10s, 2s, 500ms;"
              + " renewed every quarter of it. A node that cannot renew stops acknowledging"
              + " writes before it lapses, and other nodes then see it as dead. At least 500ms:"
              + " shorter leaves a renewal too little time for one database round trip"
              + " (PICO_NODE_TTL).")
  String nodeTtl;

  @Option(
      names = "--wal-cache-size",
      defaultValue = "${env:PICO_WAL_CACHE_SIZE}",
      description = "Log cache size, e.g. 200MiB (PICO_WAL_CACHE_SIZE).")
  String walCacheSize;

  @Option(
      names = "--block-cache-size",
      defaultValue = "${env:PICO_BLOCK_CACHE_SIZE}",
      description = "Block cache size (PICO_BLOCK_CACHE_SIZE).")
  String blockCacheSize;

  @Option(
      names = "--wal-upload-threshold",
      defaultValue = "${env:PICO_WAL_UPLOAD_THRESHOLD}",
      description = "Upload a block at this size (PICO_WAL_UPLOAD_THRESHOLD).")
  String walUploadThreshold;

  @Option(
      names = "--wal-upload-interval-ms",
      defaultValue = "${env:PICO_WAL_UPLOAD_INTERVAL_MS}",
      description = "Also upload a block this long after it opened (PICO_WAL_UPLOAD_INTERVAL_MS).")
  Long walUploadIntervalMs;

  @Override
  public Integer call() throws Exception {
    NodeConfig config;
    NodeSupervisor supervisor;
    try {
      config = config();
      prepareDataDirs(config);
      supervisor = NodeSupervisor.start(config, Clock.systemUTC());
    } catch (Exception e) {
      // Bad flags, a database in use, an unreachable bucket: say why in one line.
      System.err.println("pico: cannot start: " + e.getMessage());
      return 1;
    }
    if (spec.commandLine().getParseResult().hasMatchedOption("--meta-url")
        && config.metaUrlHoldsPassword()) {
      System.err.println(
          "pico: warning: the --meta-url flag holds a password, which any user of this machine"
              + " can read in the process list; give it in PICO_META_PASSWORD or"
              + " --meta-password-file instead");
    }
    String scheme = config.scheme();
    System.err.printf(
        Locale.ROOT,
        "pico: serving %s on %s://%s%s%n      metadata %s, storage %s%n",
        config.protocol().name().toLowerCase(Locale.ROOT),
        scheme,
        hostPort(supervisor.node().address()),
        supervisor
            .node()
            .adminAddress()
            .map(a -> ", admin on " + scheme + "://" + hostPort(a))
            .orElse(""),
        supervisor.node().metadataDescription(),
        config.storage());
    // Always taken: a reload (systemctl reload) must never stop a node, with TLS or without.
    boolean reloadable =
        ReloadSignal.install(
            () -> {
              if (config.tls().isPresent()) {
                supervisor.node().reloadTls();
              } else {
                System.err.println("pico: SIGHUP: no --tls-cert to read again; nothing to reload");
              }
            });
    if (!reloadable && config.tls().isPresent()) {
      System.err.println(
          "pico: SIGHUP is ignored in this process (started by nohup?): the TLS files are read"
              + " again only at a restart");
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.err.println("pico: stopping");
                  supervisor.close();
                  stopped.countDown();
                },
                "pico-shutdown"));
    stopped.await();
    return 0;
  }

  NodeConfig config() {
    if (!routing.equals("redirect") && !routing.equals("local")) {
      throw new IllegalArgumentException("--routing is redirect or local, not " + routing);
    }
    NodeConfig.Builder config =
        NodeConfig.builder()
            .nodeId(nodeId)
            .nodeEpoch(nodeEpoch != null ? nodeEpoch : Clock.systemUTC().millis())
            .clusterId(clusterId)
            .slots(slots)
            .listen(listen)
            .backlog(backlog)
            .shutdownDrain(Duration.ofSeconds(shutdownDrainSec))
            .metaUrl(metaUrl)
            .exposure(exposure())
            .access(access())
            .storage(storage)
            .redirect(routing.equals("redirect"))
            .protocol(ListenerProtocol.parse(pico.protocol))
            .longPollTimeout(Duration.ofSeconds(longPollTimeoutSec))
            .sseMaxDuration(Duration.ofSeconds(sseMaxDurationSec))
            .maxChunkBytes(Math.toIntExact(Sizes.parse("--max-chunk-size", maxChunkSize)))
            .requestTimeout(Duration.ofSeconds(requestTimeoutSec))
            .nodeTtl(Durations.parse("--node-ttl", nodeTtl))
            .connections(connections());
    if (noAdmin) {
      config.noAdminListener();
    } else {
      config.adminListen(adminListen);
    }
    if (httpAddress != null) {
      config.httpAddress(httpAddress);
    }
    if (wal != null) {
      config.wal(wal);
    }
    metaPassword().ifPresent(config::metaPassword);
    tlsSettings().ifPresent(config::tls);
    if (walCacheSize != null) {
      config.walCacheSizeBytes(Sizes.parse("--wal-cache-size", walCacheSize));
    }
    if (blockCacheSize != null) {
      config.blockCacheSizeBytes(Sizes.parse("--block-cache-size", blockCacheSize));
    }
    if (walUploadThreshold != null) {
      config.walUploadThresholdBytes(Sizes.parse("--wal-upload-threshold", walUploadThreshold));
    }
    if (walUploadIntervalMs != null) {
      config.walUploadIntervalMillis(walUploadIntervalMs);
    }
    return config.build();
  }

  private ConnectionSettings connections() {
    OptionalInt max;
    if (maxConnections.equals("auto")) {
      max = OptionalInt.empty();
    } else {
      try {
        max = OptionalInt.of(Integer.parseInt(maxConnections));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--max-connections is auto or a number, not " + maxConnections, e);
      }
    }
    return new ConnectionSettings(
        Duration.ofSeconds(headerTimeoutSec),
        Duration.ofSeconds(idleTimeoutSec),
        max,
        adminMaxConnections);
  }

  private ExposureSettings exposure() {
    List<String> hosts =
        allowedHosts == null
            ? List.of()
            : Arrays.stream(allowedHosts.split(","))
                .map(String::strip)
                .filter(h -> !h.isEmpty())
                .toList();
    return ExposureSettings.parse(hosts, corsOrigins, adminCorsOrigins);
  }

  private AccessSettings access() {
    boolean enabled =
        switch (accessControl.strip().toLowerCase(Locale.ROOT)) {
          case "on", "true" -> true;
          case "off", "false" -> false;
          default ->
              throw new IllegalArgumentException(
                  "--access-control (PICO_ACCESS_CONTROL) is on or off, not " + accessControl);
        };
    return new AccessSettings(
        enabled,
        secret("PICO_ROOT_TOKEN", "--root-token-file", rootTokenFile, "the root token"),
        insecure);
  }

  /**
   * The Postgres password from {@code PICO_META_PASSWORD} or {@code --meta-password-file} (one of
   * them), so that it needs to be in no command line. A file's final line break is not part of it.
   */
  private Optional<Secret> metaPassword() {
    return secret(
        "PICO_META_PASSWORD", "--meta-password-file", metaPasswordFile, "the metadata password");
  }

  /**
   * A secret from the environment variable {@code variable} or the file {@code flag} names (one of
   * them). A file's final line break is not part of it.
   */
  private Optional<Secret> secret(String variable, String flag, Path file, String what) {
    String fromEnvironment = environment.get(variable);
    if (fromEnvironment != null && file != null) {
      throw new IllegalArgumentException(
          "give " + what + " once: " + variable + " or " + flag + ", not both");
    }
    if (fromEnvironment != null) {
      return Optional.of(new Secret(fromEnvironment));
    }
    if (file == null) {
      return Optional.empty();
    }
    String content;
    try {
      content = Files.readString(file);
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      throw new IllegalArgumentException("cannot read " + flag + " " + file + ": " + e, e);
    }
    String value =
        content.endsWith("\r\n")
            ? content.substring(0, content.length() - 2)
            : content.endsWith("\n") ? content.substring(0, content.length() - 1) : content;
    if (value.isEmpty()) {
      throw new IllegalArgumentException(flag + " " + file + " is empty");
    }
    return Optional.of(new Secret(value));
  }

  /**
   * The TLS files, when {@code --tls-cert} is given: it and {@code --tls-key} go together, and the
   * key's password comes from {@code PICO_TLS_KEY_PASSWORD} or {@code --tls-key-password-file} (one
   * of them), never from a flag the process list would show.
   */
  private Optional<TlsSettings> tlsSettings() {
    String password = environment.get("PICO_TLS_KEY_PASSWORD");
    if (tlsCert == null && tlsKey == null) {
      if (password != null || tlsKeyPasswordFile != null) {
        throw new IllegalArgumentException(
            "a TLS key password is given but no --tls-cert and --tls-key");
      }
      return Optional.empty();
    }
    if (tlsCert == null || tlsKey == null) {
      throw new IllegalArgumentException("--tls-cert and --tls-key go together; give both");
    }
    // TlsSettings refuses both at once.
    return Optional.of(
        new TlsSettings(
            tlsCert,
            tlsKey,
            Optional.ofNullable(password).map(Secret::new),
            Optional.ofNullable(tlsKeyPasswordFile)));
  }

  /** SQLite and file:// want their directories to exist; create them on a first run. */
  static void prepareDataDirs(NodeConfig config) throws java.io.IOException {
    if (config.metaUrl().startsWith("sqlite:") && !config.metaUrl().equals("sqlite::memory:")) {
      Path parent =
          Path.of(config.metaUrl().substring("sqlite:".length())).toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
    }
    int scheme = config.storage().indexOf("@file://");
    if (scheme >= 0) {
      String dir = config.storage().substring(scheme + "@file://".length());
      int query = dir.indexOf('?');
      Files.createDirectories(Path.of(query >= 0 ? dir.substring(0, query) : dir));
    }
  }

  private static String hostPort(java.net.InetSocketAddress address) {
    return address.getHostString() + ":" + address.getPort();
  }
}
