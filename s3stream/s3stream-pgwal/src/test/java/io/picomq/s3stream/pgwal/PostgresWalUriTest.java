package io.picomq.s3stream.pgwal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.s3stream.wal.WalConfig;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PostgresWalUriTest {

  @Test
  void defaultsAreThoseOfTheProductBrief() {
    PostgresWalUri uri = PostgresWalUri.parse("postgres://db.example:6543/wal");
    assertThat(uri.host()).isEqualTo("db.example");
    assertThat(uri.port()).isEqualTo(6543);
    assertThat(uri.database()).isEqualTo("wal");
    assertThat(uri.user()).isEmpty();
    assertThat(uri.segmentBytes()).isEqualTo(64L << 20);
    assertThat(uri.segments()).isEqualTo(8);
    assertThat(uri.batchInterval()).isEqualTo(Duration.ofMillis(1));
    assertThat(uri.maxBytesInBatch()).isEqualTo(1L << 20);
    assertThat(uri.maxInflight()).isEqualTo(4);
    assertThat(uri.maxUnflushedBytes()).isEqualTo(128L << 20);
    assertThat(uri.allowUnsafe()).isFalse();
    assertThat(PostgresWalUri.parse("postgresql://h/d").port()).isEqualTo(5432);
  }

  @Test
  void readsCredentialsAndEveryParameterInTheFormsOfTheObjectWal() {
    PostgresWalUri uri =
        PostgresWalUri.parse(
            "postgresql://wal%40user:p%3Ass+w@[::1]/my%20db?segmentBytes=16MiB&segments=16"
                + "&batchInterval=500us&maxBytesInBatch=512KiB&maxInflight=8"
                + "&maxUnflushedBytes=200MiB&allowUnsafe=true&sslmode=require");
    assertThat(uri.user()).contains("wal@user");
    assertThat(uri.password()).contains("p:ss+w");
    assertThat(uri.host()).isEqualTo("[::1]");
    assertThat(uri.database()).isEqualTo("my db");
    assertThat(uri.segmentBytes()).isEqualTo(16L << 20);
    assertThat(uri.segments()).isEqualTo(16);
    assertThat(uri.batchInterval()).isEqualTo(Duration.ofNanos(500_000));
    assertThat(uri.maxBytesInBatch()).isEqualTo(512L << 10);
    assertThat(uri.maxInflight()).isEqualTo(8);
    assertThat(uri.maxUnflushedBytes()).isEqualTo(200L << 20);
    assertThat(uri.allowUnsafe()).isTrue();
    assertThat(uri.driver()).containsEntry("sslmode", "require");

    WalConfig config = uri.walConfig();
    assertThat(config.batchInterval()).isEqualTo(Duration.ofNanos(500_000));
    assertThat(config.maxBytesInBatch()).isEqualTo(512L << 10);
    assertThat(config.maxUnflushedBytes()).isEqualTo(200L << 20);
    assertThat(config.maxInflightUploadCount()).isEqualTo(8);
    assertThat(PostgresWalUri.parse("postgres://h/d?batchInterval=2").batchInterval())
        .isEqualTo(Duration.ofMillis(2));
    assertThat(
            PostgresWalUri.parse(
                    "postgres://h/d?segmentBytes=65536&maxUnflushedBytes=65536&maxBytesInBatch=4096")
                .segmentBytes())
        .isEqualTo(65536);
  }

  @Test
  void aSocketFactoryReachesTheDriverAsGiven() {
    // How the extension reaches its own server over the Unix socket.
    PostgresWalUri uri =
        PostgresWalUri.parse(
            "postgres://postgres@localhost:5433/postgres?socketFactory=org.example.Unix"
                + "&socketFactoryArg=%2Fvar%2Frun%2Fpostgresql%2F.s.PGSQL.5433");
    assertThat(uri.jdbcUrl())
        .contains("&socketFactory=org.example.Unix")
        .contains("&socketFactoryArg=%2Fvar%2Frun%2Fpostgresql%2F.s.PGSQL.5433");
    assertThat(PostgresWalUri.parse(uri.redacted()).jdbcUrl()).isEqualTo(uri.jdbcUrl());
  }

  @Test
  void theJdbcUrlNamesTheApplicationAndCarriesNoCredentials() {
    PostgresWalUri uri =
        PostgresWalUri.parse("postgres://u:secret@db:5433/wal?sslmode=verify-full");
    assertThat(uri.jdbcUrl())
        .isEqualTo("jdbc:postgresql://db:5433/wal?ApplicationName=picomq-wal&sslmode=verify-full");
  }

  @Test
  void theRedactedFormShowsEverythingButThePassword() {
    PostgresWalUri uri =
        PostgresWalUri.parse("postgres://u:secret@db/wal?segments=4&segmentBytes=1GiB");
    assertThat(uri.redacted())
        .startsWith("postgres://u:***@db:5432/wal?")
        .contains("segments=4")
        .contains("segmentBytes=" + (1L << 30))
        .doesNotContain("secret");
    assertThat(uri.toString()).isEqualTo(uri.redacted());
    assertThat(PostgresWalUri.parse("postgres://u@db/wal").redacted())
        .startsWith("postgres://u@db:5432/wal?");
  }

  @Test
  void badValuesAreRefusedNamingTheParameter() {
    assertRefused("postgres://h/d?segmentBytes=lots", "segmentBytes");
    assertRefused("postgres://h/d?segmentBytes=1KiB", "segmentBytes");
    assertRefused("postgres://h/d?segments=1", "segments");
    assertRefused("postgres://h/d?segments=-3", "segments");
    assertRefused("postgres://h/d?batchInterval=soon", "batchInterval");
    assertRefused("postgres://h/d?batchInterval=61s", "batchInterval");
    assertRefused("postgres://h/d?maxBytesInBatch=0", "maxBytesInBatch");
    assertRefused("postgres://h/d?maxBytesInBatch=65MiB", "maxBytesInBatch");
    assertRefused("postgres://h/d?maxInflight=0", "maxInflight");
    assertRefused("postgres://h/d?maxInflight=65", "maxInflight");
    assertRefused("postgres://h/d?maxUnflushedBytes=1KiB", "maxUnflushedBytes");
    assertRefused("postgres://h/d?allowUnsafe=yes", "allowUnsafe");
    assertRefused("postgres://h/d?sslmode=sometimes", "sslmode");
  }

  @Test
  void aRingTooSmallForTheUnflushedBytesIsRefused() {
    // (8 - 1) * 16 MiB = 112 MiB is not above the default 128 MiB.
    assertThatThrownBy(() -> PostgresWalUri.parse("postgres://h/d?segmentBytes=16MiB"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("segments")
        .hasMessageContaining("segmentBytes")
        .hasMessageContaining("maxUnflushedBytes");
    assertThatThrownBy(
            () ->
                PostgresWalUri.parse(
                    "postgres://h/d?segmentBytes=1MiB&segments=3&maxUnflushedBytes=2MiB"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxUnflushedBytes (2097152)");
    assertThat(
            PostgresWalUri.parse(
                    "postgres://h/d?segmentBytes=16MiB&segments=4&maxUnflushedBytes=47MiB")
                .segments())
        .isEqualTo(4);
  }

  @Test
  void unknownOrRepeatedParametersAreRefused() {
    assertRefused("postgres://h/d?segmentbytes=1MiB", "unknown parameter 'segmentbytes'");
    assertRefused("postgres://h/d?fenceCheck=false", "unknown parameter 'fenceCheck'");
    assertRefused("postgres://h/d?segments=4&segments=5", "'segments' is given twice");
    assertRefused("postgres://h/d?segments", "not name=value");
  }

  @Test
  void malformedUrisAreRefusedWithoutShowingThePassword() {
    assertRefused("s3://bucket/wal", "postgres://");
    assertRefused("postgres://h", "database name is missing");
    assertRefused("postgres://h/a/b", "just /database");
    assertRefused("postgres:///d", "host");
    assertRefused("postgres://h:99999/d", "port");
    assertRefused("postgres://:pw@h/d", "user name");
    assertThatThrownBy(() -> PostgresWalUri.parse("postgres://u:se cret@h/d"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("se cret")
        .hasMessageContaining("u:***@h/d");
    assertThatThrownBy(() -> PostgresWalUri.parse("postgres://u:sec%zzret@h/d"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("sec%zzret")
        .hasMessageContaining("percent-encode");
  }

  @Test
  void defaultsOfTheRecordMatchParsing() {
    assertThat(PostgresWalUri.defaults("h", 5432, "d", Optional.empty(), Optional.empty()))
        .isEqualTo(PostgresWalUri.parse("postgres://h/d"));
  }

  private static void assertRefused(String uri, String messagePart) {
    assertThatThrownBy(() -> PostgresWalUri.parse(uri))
        .as(uri)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(messagePart);
  }
}
