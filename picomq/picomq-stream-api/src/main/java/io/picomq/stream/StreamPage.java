package io.picomq.stream;

import java.util.List;

/**
 * A page of live streams (soft-deleted and expired ones are left out).
 *
 * @param hasMore more names match after the last one here
 */
public record StreamPage(List<StreamDescription> streams, boolean hasMore) {

  public StreamPage {
    streams = List.copyOf(streams);
  }
}
