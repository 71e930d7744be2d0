package io.picomq.frontend.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which {@code Host} values a listener answers, by bind address and configured entries. */
class AllowedHostsTest {

  @Test
  void aLoopbackListenerAnswersTheLoopbackNamesOnAnyPort() {
    AllowedHosts hosts = AllowedHosts.forListener("127.0.0.1", List.of());

    assertThat(hosts.allows("127.0.0.1:4437")).isTrue();
    assertThat(hosts.allows("localhost")).isTrue();
    assertThat(hosts.allows("LocalHost.:8080")).isTrue();
    assertThat(hosts.allows("[::1]:4437")).isTrue();
    // The rebinding page's own name, and other addresses of the machine, are not its names.
    assertThat(hosts.allows("evil.example:4437")).isFalse();
    assertThat(hosts.allows("localhost.evil.example")).isFalse();
    assertThat(hosts.allows("10.0.0.5:4437")).isFalse();
  }

  @Test
  void aWildcardListenerAnswersLoopbackNamesAndAnyIpButNoOtherName() {
    AllowedHosts hosts = AllowedHosts.forListener("0.0.0.0", List.of("node1.internal"));

    assertThat(hosts.allows("localhost:4437")).isTrue();
    assertThat(hosts.allows("10.0.0.5:4437")).isTrue();
    assertThat(hosts.allows("[fd00::5]:4437")).isTrue();
    assertThat(hosts.allows("node1.internal:4437")).isTrue();
    assertThat(hosts.allows("evil.example")).isFalse();
    assertThat(AllowedHosts.forListener("::", List.of()).allows("192.168.1.2")).isTrue();
  }

  @Test
  void aListenerOnOneAddressAnswersThatAddressAndTheEntries() {
    AllowedHosts hosts =
        AllowedHosts.forListener("10.0.0.5", List.of("pico.example.com", "proxy.example:8443"));

    assertThat(hosts.allows("10.0.0.5:4437")).isTrue();
    assertThat(hosts.allows("pico.example.com")).isTrue();
    assertThat(hosts.allows("pico.example.com:4437")).isTrue();
    assertThat(hosts.allows("proxy.example:8443")).isTrue();
    assertThat(hosts.allows("proxy.example:80")).isFalse();
    assertThat(hosts.allows("proxy.example")).isFalse();
    assertThat(hosts.allows("localhost")).isFalse();
    assertThat(hosts.allows("10.0.0.6")).isFalse();
    assertThat(AllowedHosts.forListener("fd00::5", List.of()).allows("[FD00::5]:4437")).isTrue();
  }

  @Test
  void aStarTurnsTheCheckOffAndNoHostPasses() {
    assertThat(AllowedHosts.forListener("127.0.0.1", List.of("*")).allows("evil.example")).isTrue();
    AllowedHosts hosts = AllowedHosts.forListener("127.0.0.1", List.of());
    assertThat(hosts.allows(null)).isTrue();
    assertThat(hosts.allows("")).isTrue();
  }

  @Test
  void malformedHostsNeverPass() {
    AllowedHosts hosts = AllowedHosts.forListener("0.0.0.0", List.of());

    assertThat(hosts.allows("127.0.0.1:99999")).isFalse();
    assertThat(hosts.allows("127.0.0.1:")).isFalse();
    assertThat(hosts.allows("127.0.0.1:80x")).isFalse();
    assertThat(hosts.allows("user@127.0.0.1")).isFalse();
    assertThat(hosts.allows("[::1")).isFalse();
    assertThat(hosts.allows("127.0.0.1/x")).isFalse();
  }

  @Test
  void entriesThatAreNoHostsAreRefused() {
    assertThatThrownBy(() -> AllowedHosts.of(List.of("http://pico.example.com"), false))
        .hasMessageContaining("'http://pico.example.com' is not a name, IP or name:port");
    assertThatThrownBy(() -> AllowedHosts.of(List.of("pico.example.com:port"), false))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
