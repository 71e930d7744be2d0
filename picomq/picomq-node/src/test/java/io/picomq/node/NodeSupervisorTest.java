package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a node restarted by its supervisor (after a takeover) is configured with. */
class NodeSupervisorTest {

  private static NodeConfig.Builder minimal() {
    return NodeConfig.builder().nodeEpoch(7).metaUrl("sqlite::memory:").storage("0@file:///tmp/x");
  }

  @Test
  void aRestartKeepsThePortsAListenerOnPortZeroWasGiven() {
    NodeConfig old = minimal().listen("127.0.0.1:0").adminListen("127.0.0.1:0").build();

    NodeConfig next =
        NodeSupervisor.restartConfig(
            old,
            8,
            new InetSocketAddress("127.0.0.1", 41000),
            Optional.of(new InetSocketAddress("127.0.0.1", 42000)));

    assertThat(next.nodeEpoch()).isEqualTo(8);
    assertThat(next.listen()).isEqualTo("127.0.0.1:41000");
    assertThat(next.adminListen()).contains("127.0.0.1:42000");
    assertThat(next.advertisedAddress(41000)).isEqualTo("http://127.0.0.1:41000");
  }

  @Test
  void aRestartKeepsConfiguredPortsAsTheyAre() {
    NodeConfig old = minimal().listen("[::1]:4437").noAdminListener().build();

    NodeConfig next =
        NodeSupervisor.restartConfig(old, 8, new InetSocketAddress("::1", 4437), Optional.empty());

    assertThat(next.listen()).isEqualTo("[::1]:4437");
    assertThat(next.adminListen()).isEmpty();
  }
}
