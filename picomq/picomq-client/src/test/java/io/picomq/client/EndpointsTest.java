package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndpointsTest {

  @Test
  void streamsLiveUnderTheProtocolsPrefix() {
    URI base = URI.create("http://127.0.0.1:4437/");
    assertThat(new Endpoints(base, Protocol.PICO).stream("orders/42"))
        .hasToString("http://127.0.0.1:4437/orders/42");
    assertThat(new Endpoints(base, Protocol.DURABLE_STREAMS).stream("/orders/42"))
        .hasToString("http://127.0.0.1:4437/v1/stream/orders/42");
  }

  @Test
  void namesArePercentEncodedAndQueriesEscaped() {
    Map<String, String> query = new LinkedHashMap<>();
    query.put("prefix", "/a b&c");
    Endpoints endpoints = new Endpoints(URI.create("http://h:1/base"), Protocol.PICO);
    assertThat(endpoints.stream("/we ird/?#é", Map.of()))
        .hasToString("http://h:1/base/we%20ird/%3F%23%C3%A9");
    assertThat(endpoints.root(query)).hasToString("http://h:1/base/?prefix=%2Fa+b%26c");
  }

  @Test
  void canonicalNamesStartWithASlash() {
    assertThat(Endpoints.name("a/b")).isEqualTo("/a/b");
    assertThat(Endpoints.name("/a/b")).isEqualTo("/a/b");
  }
}
