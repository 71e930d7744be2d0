package io.picomq.e2e;

import java.net.URI;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code pico serve} processes sharing a fresh Postgres database (created here, dropped at {@link
 * #close}) on the server {@code PICOMQ_PG_URL} names, and one {@code file://} bucket under {@code
 * dir} unless a node is given its own {@code --storage}: a cluster on one machine, for tests.
 */
public final class PostgresCluster implements AutoCloseable {
  /**
   * Arguments that keep acknowledged records in the WAL only (nothing reaches a data object for ten
   * minutes), so that after a kill only WAL recovery can bring them back.
   */
  public static final List<String> WAL_ONLY =
      List.of("--wal-upload-interval-ms", "600000", "--wal-upload-threshold", "64MiB");

  private final Path dir;
  private final String database;
  private final String metaUrl;
  private final List<ServerProcess> nodes = new ArrayList<>();

  private PostgresCluster(Path dir, String database, String metaUrl) {
    this.dir = dir;
    this.database = database;
    this.metaUrl = metaUrl;
  }

  /** Creates the database; nodes' data directories go under {@code dir}. */
  public static PostgresCluster create(Path dir) throws SQLException {
    String database = "e2e_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    PostgresAdmin.execute("CREATE DATABASE " + database);
    URI server = URI.create(System.getenv("PICOMQ_PG_URL"));
    return new PostgresCluster(
        dir, database, "postgres://" + server.getRawAuthority() + "/" + database);
  }

  /** The cluster's database on the server {@code PICOMQ_PG_URL} names. */
  public String database() {
    return database;
  }

  /** The {@code --meta-url} every node of the cluster uses. */
  public String metaUrl() {
    return metaUrl;
  }

  /**
   * Starts node {@code id} on the cluster's database, with {@code extraArgs} after {@code serve}
   * (the shared bucket unless they name a {@code --storage}).
   */
  public ServerProcess node(int id, String... extraArgs) {
    return node(id, Map.of(), extraArgs);
  }

  /**
   * Starts node {@code id} as {@link #node(int, String...)} does, with {@code environment} added to
   * its own (e.g. an S3 server's credentials, see {@link S3ProxyProcess#credentials}).
   */
  public ServerProcess node(int id, Map<String, String> environment, String... extraArgs) {
    List<String> args =
        new ArrayList<>(List.of("--node-id", Integer.toString(id), "--meta-url", metaUrl));
    if (List.of(extraArgs).stream().noneMatch(arg -> arg.startsWith("--storage"))) {
      args.add("--storage=-2@file://" + dir.resolve("objects"));
    }
    args.addAll(List.of(extraArgs));
    ServerProcess node =
        ServerProcess.startWith(dir.resolve("node-" + id), environment, List.of(), args);
    nodes.add(node);
    return node;
  }

  /** Stops every node still running and drops the database. */
  @Override
  public void close() throws SQLException {
    nodes.forEach(ServerProcess::close);
    PostgresAdmin.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
  }
}
