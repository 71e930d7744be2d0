package io.picomq.meta.state;

import java.util.List;

/** An object holding one contiguous range of one stream. */
public record StreamObject(
    long objectId, long streamId, long startOffset, long endOffset, long sizeBytes)
    implements CatalogObject {

  public StreamObject {
    if (objectId < 0 || sizeBytes < 0) {
      throw new IllegalArgumentException(
          "stream object needs non-negative id and size, got " + objectId);
    }
    new ObjectRange(streamId, startOffset, endOffset); // validates the range
  }

  public ObjectRange range() {
    return new ObjectRange(streamId, startOffset, endOffset);
  }

  @Override
  public List<ObjectRange> ranges() {
    return List.of(range());
  }
}
