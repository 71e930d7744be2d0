package io.picomq.sql.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MetaUrlTest {

  @Test
  void sqliteForms() {
    assertThat(MetaUrl.parse("sqlite::memory:")).isEqualTo(new MetaUrl.SqliteMemory());
    assertThat(MetaUrl.parse("sqlite:./data/meta.db"))
        .isEqualTo(new MetaUrl.SqliteFile(Path.of("./data/meta.db")));
    assertThat(MetaUrl.parse("sqlite:/var/lib/picomq/meta.db"))
        .isEqualTo(new MetaUrl.SqliteFile(Path.of("/var/lib/picomq/meta.db")));
  }

  @Test
  void postgresWithEverything() {
    MetaUrl.Postgres url =
        (MetaUrl.Postgres)
            MetaUrl.parse("postgres://pico:s%40cr%3At+x@db.example.com:6543/meta?sslmode=require");
    assertThat(url.host()).isEqualTo("db.example.com");
    assertThat(url.port()).isEqualTo(6543);
    assertThat(url.database()).isEqualTo("meta");
    assertThat(url.user()).contains("pico");
    assertThat(url.password()).contains("s@cr:t+x");
    assertThat(url.parameters()).isEqualTo(Map.of("sslmode", "require"));
    assertThat(url.jdbcUrl())
        .isEqualTo("jdbc:postgresql://db.example.com:6543/meta?sslmode=require");
  }

  @Test
  void postgresDefaultsAndAliases() {
    MetaUrl.Postgres url = (MetaUrl.Postgres) MetaUrl.parse("postgresql://127.0.0.1/test");
    assertThat(url.port()).isEqualTo(5432);
    assertThat(url.user()).isEmpty();
    assertThat(url.password()).isEmpty();
    assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/test");
    assertThat(MetaUrl.parse("postgres://postgres@127.0.0.1:5432/test"))
        .isEqualTo(
            new MetaUrl.Postgres(
                "127.0.0.1", 5432, "test", Optional.of("postgres"), Optional.empty(), Map.of()));
    assertThat(((MetaUrl.Postgres) MetaUrl.parse("postgres://[::1]:5433/db")).jdbcUrl())
        .isEqualTo("jdbc:postgresql://[::1]:5433/db");
  }

  @Test
  void aPasswordNeverAppearsInTextMeantForHumans() {
    MetaUrl url = MetaUrl.parse("postgres://pico:hunter2@db:5432/meta");
    assertThat(url.toString())
        .isEqualTo("postgres://pico:***@db:5432/meta")
        .doesNotContain("hunter2");
    assertThat(url.redacted()).doesNotContain("hunter2");
    assertThatThrownBy(() -> MetaUrl.parse("postgres://pico:hunter2@db:5432/"))
        .isInstanceOf(MalformedMetaUrlException.class)
        .hasMessageNotContaining("hunter2")
        .hasMessageContaining("pico:***@db");
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "mysql://db/meta                 | unknown scheme",
        "''                              | unknown scheme",
        "sqlite:                         | path is empty",
        "sqlite://data/meta.db           | not sqlite://",
        "sqlite::memory                  | did you mean sqlite::memory:?",
        "postgres://db:5432              | database name is missing",
        "postgres://db:5432/             | database name is missing",
        "postgres://db/a/b               | just /database",
        "postgres:///meta                | host is missing",
        "postgres://db:99999/meta        | port 99999",
        "postgres://:pw@db/meta          | user name before '@' is empty",
        "postgres://db/meta?sslmode      | not key=value",
        "postgres://db/meta?a=1&a=2      | repeated",
        "postgres://db/meta#x            | fragment",
        "postgres://db/m eta             | not a valid URL",
        "postgres://db/%zz               | Malformed escape pair",
      })
  void malformedUrlsAreRefusedWithTheReason(String text, String reason) {
    assertThatThrownBy(() -> MetaUrl.parse(text))
        .isInstanceOf(MalformedMetaUrlException.class)
        .hasMessageContaining("malformed --meta-url")
        .hasMessageContaining(reason)
        .hasMessageContaining("accepted forms: sqlite::memory:, sqlite:PATH, postgres://");
  }
}
