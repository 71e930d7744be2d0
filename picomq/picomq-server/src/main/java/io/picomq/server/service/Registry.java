package io.picomq.server.service;

import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.MetadataState;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The name registry as stored: each stream's {@link Registration} lives in the metadata KV under
 * {@code stream/<name>}. What routing and the admin API read from a metadata state, without the
 * stream service (they decode; only the service loads and writes entries, see {@link
 * LoadedStreams}).
 */
public final class Registry {
  /** The KV prefix of every registry entry. */
  static final String KEY_PREFIX = "stream/";

  private Registry() {}

  /** The KV key of {@code name}'s entry. */
  static String key(String name) {
    return KEY_PREFIX + name;
  }

  /** The stream name a registry key names. */
  static String nameOf(String key) {
    return key.substring(KEY_PREFIX.length());
  }

  /**
   * Every registered name by its internal stream id, for answers that list streams the log knows by
   * id (pending transfers, planned moves). A stream no entry points at is absent. A scan of the
   * registry: for admin answers, not requests.
   */
  public static Map<Long, String> namesById(MetadataState state) {
    Map<Long, String> names = new HashMap<>();
    for (String key : state.kv().subMap(KEY_PREFIX, KEY_PREFIX + Character.MAX_VALUE).keySet()) {
      String name = nameOf(key);
      registeredStreamId(state, name).ifPresent(id -> names.put(id, name));
    }
    return names;
  }

  /**
   * The engine stream holding a name's own records, as the registry in {@code state} says; empty
   * for a name nobody created, and for an unusable entry (served where it is asked, which answers
   * what is wrong with it). What routing looks at.
   */
  public static OptionalLong registeredStreamId(MetadataState state, String name) {
    Optional<KvValue> value = state.kvValue(key(name));
    if (value.isEmpty()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Registration.decode(value.get().toByteArray()).streamId());
    } catch (IllegalStateException damaged) {
      return OptionalLong.empty();
    }
  }

  /**
   * Why the name's entry in {@code state} is unusable, or empty when it is usable or absent. What
   * the admin API reports.
   */
  public static Optional<String> unusableReason(MetadataState state, String name) {
    Optional<KvValue> value = state.kvValue(key(name));
    if (value.isEmpty()) {
      return Optional.empty();
    }
    try {
      Registration.decode(value.get().toByteArray());
      return Optional.empty();
    } catch (IllegalStateException damaged) {
      return Optional.of(damaged.getMessage());
    }
  }
}
