package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.frontend.http.AllowedHosts;
import io.picomq.frontend.http.AllowedOrigins;
import io.picomq.frontend.http.ConnectionLimits;
import io.picomq.frontend.http.CorsPolicy;
import io.picomq.frontend.http.HttpLimits;
import io.picomq.frontend.http.HttpListener;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17's attacks from a real browser (headless Chromium, {@code attack-node.mjs}) against a
 * node with the default settings: a page of another site, and a page whose name was rebound to this
 * machine, cannot list, read, append to, seal or delete streams, nor change the cluster; a page
 * served from this machine (the default {@code --cors-origins loopback}) can use the data API.
 */
class BrowserAttackTest {

  @TempDir Path dir;
  private final AdminHttp http = new AdminHttp();
  private Node node;

  @AfterEach
  void stop() {
    if (node != null) {
      node.stop(Duration.ZERO);
    }
  }

  @Test
  void pagesOfOtherSitesAndReboundPagesChangeNothing() throws Exception {
    HeadlessChromium.require("BrowserAttackTest");
    node = Node.start(AdminApiTest.config(dir, 1, ListenerProtocol.PICO), Clock.systemUTC());
    int dataPort = node.address().getPort();
    int adminPort = node.adminAddress().orElseThrow().getPort();
    String data = "http://127.0.0.1:" + dataPort;
    assertThat(http.send("PUT", data + "/victim", "first").statusCode()).isEqualTo(201);

    // Counts the cross-site page's no-cors POSTs that reach it: proof that this browser sends them.
    List<String> witnessed = new CopyOnWriteArrayList<>();
    HttpListener witness =
        HttpListener.start(
            new HttpListener.Options(
                "127.0.0.1",
                0,
                HttpLimits.DEFAULT,
                Map.of(),
                1,
                8,
                ConnectionLimits.DEFAULT,
                AllowedHosts.ANY,
                new CorsPolicy(AllowedOrigins.ANY, "-", "POST", "Content-Type", "")),
            exchange -> {
              witnessed.add(exchange.headers().get("Origin"));
              exchange.respond(
                  HttpResponseStatus.NO_CONTENT, new DefaultHttpHeaders(), new byte[0]);
            });
    JsonNode seen;
    try {
      seen =
          HeadlessChromium.run(
              dir,
              "attack-node.mjs",
              Integer.toString(dataPort),
              Integer.toString(adminPort),
              Integer.toString(witness.address().getPort()));
    } finally {
      witness.close();
    }

    JsonNode crossSite = seen.path("crossSite");
    for (String attempt : new String[] {"list", "read", "delete", "seal", "adminJson"}) {
      assertThat(crossSite.path(attempt).has("blocked")).as("%s: %s", attempt, seen).isTrue();
    }
    // No preflight for a text/plain POST: the browser sends it (the witness got one, with the
    // page's Origin) and hides the answer from the page. The node refused both (see below).
    assertThat(witnessed).containsExactly("http://evil.test:8000");
    assertThat(crossSite.path("blindAppend").path("opaque").asBoolean()).as("%s", seen).isTrue();
    assertThat(crossSite.path("adminTextPlain").path("opaque").asBoolean()).as("%s", seen).isTrue();

    JsonNode rebound = seen.path("rebound");
    for (JsonNode attempt :
        new JsonNode[] {
          rebound.path("data").path("list"),
          rebound.path("data").path("delete"),
          rebound.path("admin").path("cluster"),
          rebound.path("admin").path("slots")
        }) {
      assertThat(attempt.path("status").asInt()).as("%s", seen).isEqualTo(421);
      assertThat(attempt.path("body").asText()).contains("host_not_allowed");
    }

    JsonNode allowed = seen.path("allowed");
    assertThat(allowed.path("list").path("status").asInt()).as("%s", seen).isEqualTo(200);
    assertThat(allowed.path("list").path("body").asText()).contains("/victim");
    assertThat(allowed.path("append").path("status").asInt()).as("%s", seen).isEqualTo(200);

    // The stream holds its first record and the allowed page's, nothing from evil.test; the
    // cluster kept its slots.
    HttpResponse<String> records = http.send("GET", data + "/victim?seq=0", null);
    assertThat(records.body())
        .contains("first", "written by localhost:5173")
        .doesNotContain("evil.test");
    assertThat(records.body()).doesNotContain("\"closed\":true");
    String admin = "http://127.0.0.1:" + adminPort;
    JsonNode nodes = AdminHttp.json(http.send("GET", admin + "/admin/nodes", null)).path("nodes");
    assertThat(AdminHttp.byNodeId(nodes, 1).path("slots").asInt()).isEqualTo(1);
  }
}
