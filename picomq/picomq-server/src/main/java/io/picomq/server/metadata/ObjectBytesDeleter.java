package io.picomq.server.metadata;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Deletes the stored bytes of destroyed objects: the first phase of collection. Completes once the
 * bytes are gone (deleting bytes that are already gone succeeds).
 */
@FunctionalInterface
public interface ObjectBytesDeleter {
  CompletableFuture<Void> deleteBytes(List<Long> objectIds);
}
