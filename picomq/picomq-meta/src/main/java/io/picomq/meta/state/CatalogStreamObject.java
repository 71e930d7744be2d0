package io.picomq.meta.state;

import java.util.List;

/** An object holding one contiguous range of one stream. */
public record CatalogStreamObject(
    long objectId, long streamId, long startOffset, long endOffset, long sizeBytes)
    implements CatalogObject {

  public CatalogStreamObject {
    if (objectId < 0 || sizeBytes < 0) {
      throw new IllegalArgumentException(
          "stream object needs non-negative id and size, got " + objectId);
    }
    new CatalogRange(streamId, startOffset, endOffset); // validates the range
  }

  public CatalogRange range() {
    return new CatalogRange(streamId, startOffset, endOffset);
  }

  @Override
  public List<CatalogRange> ranges() {
    return List.of(range());
  }
}
