package io.picomq.frontend.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The {@code --cors-origins} forms and which {@code Origin} values they allow. */
class AllowedOriginsTest {

  @Test
  void loopbackAllowsPagesServedFromThisMachineOnAnyPort() {
    AllowedOrigins origins = AllowedOrigins.LOOPBACK;

    assertThat(origins.allows("http://localhost:5173")).isTrue();
    assertThat(origins.allows("http://127.0.0.1")).isTrue();
    assertThat(origins.allows("https://[::1]:8443")).isTrue();
    assertThat(origins.allows("https://evil.example")).isFalse();
    assertThat(origins.allows("http://localhost.evil.example")).isFalse();
    assertThat(origins.allows("null")).isFalse();
    assertThat(origins.allows(null)).isFalse();
    assertThat(origins.allows("file://localhost")).isFalse();
  }

  @Test
  void anOriginAllowsItselfOnlyAndItsDefaultPortIsTheSameOrigin() {
    AllowedOrigins origins =
        AllowedOrigins.parse("https://app.example.com, http://dev.example.com:*");

    assertThat(origins.allows("https://app.example.com")).isTrue();
    assertThat(origins.allows("https://APP.example.com:443")).isTrue();
    assertThat(origins.allows("https://app.example.com:8443")).isFalse();
    assertThat(origins.allows("http://app.example.com")).isFalse();
    assertThat(origins.allows("https://sub.app.example.com")).isFalse();
    assertThat(origins.allows("http://dev.example.com:3000")).isTrue();
    assertThat(origins.allows("http://dev.example.com")).isTrue();
    assertThat(origins.allows("https://dev.example.com:3000")).isFalse();
  }

  @Test
  void noneAndStar() {
    assertThat(AllowedOrigins.parse("none").isNone()).isTrue();
    assertThat(AllowedOrigins.parse("").isNone()).isTrue();
    assertThat(AllowedOrigins.parse("none").allows("http://localhost")).isFalse();
    AllowedOrigins any = AllowedOrigins.parse("*");
    assertThat(any.any()).isTrue();
    assertThat(any.allows("https://evil.example")).isTrue();
  }

  @Test
  void entriesThatAreNoOriginsAreRefused() {
    assertThatThrownBy(() -> AllowedOrigins.parse("app.example.com"))
        .hasMessageContaining("'app.example.com' is not none, *, loopback or scheme://host");
    assertThatThrownBy(() -> AllowedOrigins.parse("https://*.example.com"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AllowedOrigins.parse("ftp://example.com"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
