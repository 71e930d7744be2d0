package io.picomq.server.service;

import io.picomq.meta.command.Command;
import io.picomq.meta.state.KvValue;
import io.picomq.server.metadata.MetadataPlane;
import java.util.concurrent.CompletableFuture;

/**
 * Where the service writes updates of existing registry entries: the metadata log. A seam of its
 * own so crash tests can fail or hold an entry write at the moment that matters (after the records
 * it follows are durable) while everything else runs the real path.
 */
@FunctionalInterface
interface EntryLog {

  /** Puts {@code entry} under {@code key}; completes once the put applied. */
  CompletableFuture<Void> put(String key, byte[] entry);

  static EntryLog of(MetadataPlane plane) {
    return (key, entry) ->
        plane
            .proposeAccepted(new Command.KvPut(key, KvValue.of(entry)))
            .thenApply(outcome -> (Void) null);
  }
}
