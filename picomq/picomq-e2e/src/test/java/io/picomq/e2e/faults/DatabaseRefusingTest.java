package io.picomq.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.e2e.PostgresAdmin;
import io.picomq.e2e.ServerProcess;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code pico serve} on a fresh Postgres database of its own, which the test then makes refuse
 * connections ({@code ALLOW_CONNECTIONS false} and every session terminated): creates and
 * idempotent producer appends answer a typed 503 within the request timeout, {@code /ready} turns
 * 503, and once the database accepts connections again everything recovers: ready, the retried
 * append is accepted exactly once, the retried create settles, and nothing acknowledged is lost.
 */
@EnabledIfEnvironmentVariable(named = "PICOMQ_PG_URL", matches = ".+")
class DatabaseRefusingTest {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration BOUND = REQUEST_TIMEOUT.plusSeconds(8);

  @TempDir Path dir;
  private String database;

  @AfterEach
  void dropDatabase() throws SQLException {
    if (database != null) {
      PostgresAdmin.execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS true");
      PostgresAdmin.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
  }

  @Test
  void createsAndAppendsAnswer503WhileTheDatabaseRefusesAndRecoverAfter() throws Exception {
    database = "faults_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    PostgresAdmin.execute("CREATE DATABASE " + database);
    URI server = URI.create(System.getenv("PICOMQ_PG_URL"));
    String metaUrl = "postgres://" + server.getRawAuthority() + "/" + database;
    Answers answers = new Answers(BOUND);
    try (ServerProcess node =
        ServerProcess.start(
            dir.resolve("node"),
            "--meta-url",
            metaUrl,
            "--request-timeout-sec",
            Long.toString(REQUEST_TIMEOUT.toSeconds()))) {
      URI stream = node.endpoint().resolve("/db/refusing");
      assertThat(answers.send("PUT", stream, Map.of(), null).statusCode()).isEqualTo(201);
      assertThat(append(answers, stream, 0).statusCode()).isEqualTo(200);

      PostgresAdmin.execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS false");
      PostgresAdmin.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
              + database
              + "'");

      URI created = node.endpoint().resolve("/db/created-during-outage");
      HttpResponse<byte[]> create = answers.send("PUT", created, Map.of(), null);
      assertThat(create.statusCode()).as(body(create)).isEqualTo(503);
      assertThat(body(create)).contains("\"may_have_completed\":true");
      HttpResponse<byte[]> producer = append(answers, stream, 1);
      assertThat(producer.statusCode()).as(body(producer)).isEqualTo(503);
      Answers.awaitTrue(
          "not ready while the database refuses",
          Duration.ofSeconds(20),
          () -> answers.ready(node.adminEndpoint()) == 503);

      PostgresAdmin.execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS true");
      Answers.awaitTrue(
          "ready once the database accepts connections",
          Duration.ofSeconds(30),
          () -> answers.ready(node.adminEndpoint()) == 200);
      // The client's move after a 503 that may have completed: retry idempotently.
      HttpResponse<byte[]> retried = append(answers, stream, 1);
      assertThat(retried.statusCode()).as(body(retried)).isIn(200, 204);
      assertThat(answers.send("PUT", created, Map.of(), null).statusCode()).isIn(200, 201);

      HttpResponse<byte[]> read =
          answers.send("GET", URI.create(stream + "?seq=0&format=json"), Map.of(), null);
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(body(read)).contains("\"record 0\"").contains("\"record 1\"");
      assertThat(Answers.header(read, "pico-next-seq")).hasValue("2");
    }
  }

  private static HttpResponse<byte[]> append(Answers answers, URI stream, int seq)
      throws Exception {
    return answers.send(
        "POST",
        stream,
        Map.of(
            "Content-Type", "application/octet-stream",
            "Pico-Producer-Id", "faults",
            "Pico-Producer-Epoch", "0",
            "Pico-Producer-Seq", Integer.toString(seq)),
        ("record " + seq).getBytes(StandardCharsets.UTF_8));
  }

  private static String body(HttpResponse<byte[]> answer) {
    return new String(answer.body(), StandardCharsets.UTF_8);
  }
}
