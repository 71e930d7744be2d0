package io.picomq.frontend.ds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SseEventsTest {

  @Test
  void everyLineOfAPayloadIsItsOwnDataLine() {
    assertThat(new String(SseEvents.data("a\r\nb\rc\nd"), UTF_8))
        .isEqualTo("event: data\ndata:a\ndata:b\ndata:c\ndata:d\n\n");
    assertThat(new String(SseEvents.data(" lead\n\nend\n"), UTF_8))
        .isEqualTo("event: data\ndata: lead\ndata:\ndata:end\ndata:\n\n");
  }

  @Test
  void controlEventsCarryOffsetsCursorsAndFlags() {
    assertThat(new String(SseEvents.control("O", "7", true), UTF_8))
        .isEqualTo(
            "event: control\ndata:{\"streamNextOffset\":\"O\",\"streamCursor\":\"7\","
                + "\"upToDate\":true}\n\n");
    assertThat(new String(SseEvents.control("O", "7", false), UTF_8)).doesNotContain("upToDate");
    assertThat(new String(SseEvents.closed("O"), UTF_8))
        .isEqualTo("event: control\ndata:{\"streamNextOffset\":\"O\",\"streamClosed\":true}\n\n");
  }
}
