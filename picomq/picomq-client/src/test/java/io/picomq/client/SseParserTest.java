package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SseParserTest {

  private static List<SseEvent> parse(String text) throws IOException {
    SseParser parser =
        new SseParser(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    List<SseEvent> events = new ArrayList<>();
    for (Optional<SseEvent> e = parser.next(); e.isPresent(); e = parser.next()) {
      events.add(e.get());
    }
    return events;
  }

  @Test
  void eventsWithTypesIdsAndMultiLineData() throws IOException {
    List<SseEvent> events =
        parse(
            "id: 0\ndata: {\"seq\":0}\n\n"
                + ": keep-alive\n\n"
                + "event: control\r\ndata:line one\r\ndata: line two\r\n\r\n"
                + "event: data\rdata:  two spaces\r\r");

    assertThat(events)
        .containsExactly(
            new SseEvent("message", Optional.of("0"), "{\"seq\":0}"),
            new SseEvent("control", Optional.of("0"), "line one\nline two"),
            new SseEvent("data", Optional.of("0"), " two spaces"));
  }

  @Test
  void aPartialEventAtTheEndIsDropped() throws IOException {
    assertThat(parse("data: whole\n\ndata: cut off")).hasSize(1);
  }
}
