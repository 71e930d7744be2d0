package io.picomq.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.frontend.http.StreamNames;
import io.picomq.meta.command.Command;
import org.junit.jupiter.api.Test;

/**
 * The frontend's cap on a stream name and the metadata registry's cap on a key agree: the node is
 * where the two modules meet (the frontend sees only the stream contract, not the registry).
 */
class StreamNameLimitTest {

  @Test
  void aNameAtTheLimitFitsTheRegistryKey() {
    String longest = "/" + "n".repeat(StreamNames.MAX_BYTES - 1);
    assertThat(StreamNames.problem(longest)).isEmpty();
    assertThat(("stream/" + longest).getBytes(UTF_8)).hasSize(Command.MAX_KEY_BYTES);
  }
}
