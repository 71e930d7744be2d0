package io.picomq.meta.state;

import java.util.List;

/**
 * A committed object the catalog knows about. {@link #ranges()} lists only its live ranges, those
 * still reachable by some stream; an object with none left leaves the catalog for the destruction
 * queue.
 */
public sealed interface CatalogObject permits StreamSetObject, CatalogStreamObject {
  long objectId();

  long sizeBytes();

  /** Live ranges, sorted by stream then start offset, never empty. */
  List<CatalogRange> ranges();
}
