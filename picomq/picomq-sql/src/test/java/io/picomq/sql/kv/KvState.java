package io.picomq.sql.kv;

import org.pcollections.HashTreePMap;
import org.pcollections.PMap;

/**
 * The test machine's state: the map, how many commands were applied, and a hash chained over every
 * applied command, so two states are equal only if they saw the same commands in the same order.
 */
public record KvState(PMap<String, String> entries, long applied, long orderHash) {
  public static final KvState EMPTY = new KvState(HashTreePMap.empty(), 0, 17);
}
