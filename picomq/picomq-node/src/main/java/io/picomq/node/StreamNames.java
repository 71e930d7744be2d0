package io.picomq.node;

import io.picomq.meta.state.MetadataState;
import io.picomq.server.service.Registry;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The stream names of one metadata state by internal stream id, for answers that list streams the
 * log knows by id (pending transfers, planned moves). A stream id with no name (an engine stream no
 * registry entry points at) is absent.
 */
final class StreamNames {
  /**
   * The registry's KV prefix. {@code Registry.KEY_PREFIX} in picomq-server is package-private; each
   * entry found here is still decoded by {@link Registry}, so a changed prefix finds no names
   * rather than wrong ones.
   */
  private static final String REGISTRY_PREFIX = "stream/";

  private StreamNames() {}

  static Map<Long, String> of(MetadataState state) {
    Map<Long, String> names = new HashMap<>();
    for (String key :
        state.kv().subMap(REGISTRY_PREFIX, REGISTRY_PREFIX + Character.MAX_VALUE).keySet()) {
      String name = key.substring(REGISTRY_PREFIX.length());
      OptionalLong streamId = Registry.registeredStreamId(state, name);
      if (streamId.isPresent()) {
        names.put(streamId.getAsLong(), name);
      }
    }
    return names;
  }
}
