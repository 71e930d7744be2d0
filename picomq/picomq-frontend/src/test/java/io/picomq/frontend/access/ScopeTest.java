package io.picomq.frontend.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** Scopes as the admin API takes them: parsing, matching, and the narrowing rule for issuing. */
class ScopeTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static Scope scope(String json) throws Exception {
    return ScopeJson.parse(JSON.readTree(json));
  }

  @Test
  void groupsExpandAndMatchersCoverNamesAndPrefixes() throws Exception {
    Scope scope =
        scope(
            "{\"streams\":[\"orders\",\"logs/*\"],\"operations\":[\"read\",\"append\"],"
                + "\"audiences\":[\"pico\"],\"expires_at\":\"2027-01-01T00:00:00Z\"}");

    assertThat(scope.verbs())
        .containsExactlyInAnyOrder(Verb.LIST, Verb.HEAD, Verb.READ, Verb.APPEND);
    assertThat(scope.allows(Verb.APPEND, "/orders")).isTrue();
    assertThat(scope.allows(Verb.APPEND, "/orders/x")).isFalse();
    assertThat(scope.allows(Verb.READ, "/logs/a/b")).isTrue();
    assertThat(scope.allows(Verb.READ, "/logs")).isFalse();
    assertThat(scope.allows(Verb.DELETE, "/orders")).isFalse();
    assertThat(scope.allowsListing("/logs/")).isTrue();
    assertThat(scope.allowsListing("/")).isFalse();
    assertThat(scope.allowsListing("")).isFalse();
    assertThat(scope.allowsListing("no-slash")).as("lists nothing").isTrue();
    Scope every = scope("{\"streams\":[\"*\"],\"operations\":[\"list\"],\"audiences\":[\"pico\"]}");
    assertThat(every.allowsListing("")).isTrue();
    assertThat(every.allowsListing("/")).isTrue();
    assertThat(every.allowsListing("/a/b")).isTrue();
    assertThat(scope.expiresAt()).contains(Instant.parse("2027-01-01T00:00:00Z"));
    assertThat(JSON.writeValueAsString(ScopeJson.write(scope)))
        .isEqualTo(
            "{\"streams\":[\"orders\",\"logs/*\"],\"operations\":[\"read\",\"append\"],"
                + "\"audiences\":[\"pico\"],\"expires_at\":\"2027-01-01T00:00:00Z\"}");
    assertThat(
            scope("{\"streams\":[\"*\"],\"operations\":[\"all\"],\"audiences\":[\"admin\"]}")
                .verbs())
        .isEqualTo(EnumSet.allOf(Verb.class));
  }

  @Test
  void aBadValueIsNamed() {
    assertThatThrownBy(
            () -> scope("{\"streams\":[\"*\"],\"operations\":[\"rede\"],\"audiences\":[\"pico\"]}"))
        .isInstanceOf(InvalidScope.class)
        .hasMessageContaining("'rede'");
    assertThatThrownBy(
            () ->
                scope("{\"streams\":[\"*\"],\"operations\":[\"read\"],\"audiences\":[\"kafka\"]}"))
        .hasMessageContaining("'kafka'");
    assertThatThrownBy(
            () ->
                scope("{\"streams\":[\"a*b\"],\"operations\":[\"read\"],\"audiences\":[\"pico\"]}"))
        .hasMessageContaining("'a*b'");
    assertThatThrownBy(
            () ->
                scope(
                    "{\"streams\":[\"a//b\"],\"operations\":[\"read\"],\"audiences\":[\"pico\"]}"))
        .hasMessageContaining("'a//b'");
    assertThatThrownBy(
            () ->
                scope(
                    "{\"streams\":[\"a\"],\"operations\":[\"read\"],\"audiences\":[\"pico\"],\"expires_at\":\"tomorrow\"}"))
        .hasMessageContaining("'tomorrow'");
    assertThatThrownBy(
            () ->
                scope(
                    "{\"streams\":[\"a\"],\"operations\":[\"read\"],\"audiences\":[\"pico\"],\"x\":1}"))
        .hasMessageContaining("'x'");
    assertThatThrownBy(
            () -> scope("{\"streams\":[],\"operations\":[\"read\"],\"audiences\":[\"pico\"]}"))
        .hasMessageContaining("'streams'");
  }

  @Test
  void aScopeIsNarrowerOnlyWhenEveryPartIs() throws Exception {
    Scope parent =
        scope(
            "{\"streams\":[\"logs/*\",\"orders\"],\"operations\":[\"read\",\"append\",\"tokens\"],"
                + "\"audiences\":[\"pico\",\"admin\"],\"expires_at\":\"2027-01-01T00:00:00Z\"}");

    assertThat(
            scope(
                    "{\"streams\":[\"logs/a/*\",\"/orders\"],\"operations\":[\"append\"],"
                        + "\"audiences\":[\"pico\"],\"expires_at\":\"2026-06-01T00:00:00Z\"}")
                .widerThan(parent))
        .isEmpty();
    assertThat(parent.widerThan(parent)).isEmpty();
    assertThat(
            scope(
                    "{\"streams\":[\"logs*\"],\"operations\":[\"read\"],\"audiences\":[\"pico\"],"
                        + "\"expires_at\":\"2026-06-01T00:00:00Z\"}")
                .widerThan(parent))
        .get()
        .asString()
        .startsWith("streams: 'logs*'");
    assertThat(
            scope(
                    "{\"streams\":[\"orders/*\"],\"operations\":[\"read\"],\"audiences\":[\"pico\"],"
                        + "\"expires_at\":\"2026-06-01T00:00:00Z\"}")
                .widerThan(parent))
        .get()
        .asString()
        .startsWith("streams:");
    assertThat(
            scope(
                    "{\"streams\":[\"orders\"],\"operations\":[\"write\"],\"audiences\":[\"pico\"],"
                        + "\"expires_at\":\"2026-06-01T00:00:00Z\"}")
                .widerThan(parent))
        .get()
        .asString()
        .startsWith("operations: create, close, trim, fork");
    assertThat(
            scope(
                    "{\"streams\":[\"orders\"],\"operations\":[\"read\"],"
                        + "\"audiences\":[\"durable_streams\"],\"expires_at\":\"2026-06-01T00:00:00Z\"}")
                .widerThan(parent))
        .get()
        .asString()
        .startsWith("audiences: durable_streams");
    assertThat(
            scope("{\"streams\":[\"orders\"],\"operations\":[\"read\"],\"audiences\":[\"pico\"]}")
                .widerThan(parent))
        .get()
        .asString()
        .startsWith("expires_at:");
    assertThat(
            scope(
                    "{\"streams\":[\"orders\"],\"operations\":[\"read\"],\"audiences\":[\"pico\"],"
                        + "\"expires_at\":\"2027-01-02T00:00:00Z\"}")
                .widerThan(parent))
        .get()
        .asString()
        .startsWith("expires_at: 2027-01-02");
  }
}
