package io.picomq.s3stream.object;

import java.util.List;
import java.util.Objects;

/**
 * A data object that is now durable in the object store: everything a metadata commit needs.
 *
 * @param objectId the id the object was written under
 * @param key its key ({@link ObjectNamespace#key})
 * @param sizeBytes bytes of the object itself
 * @param attributes the attribute word to record with it
 * @param streamRanges what it holds, per stream
 */
public record WrittenObject(
    long objectId,
    String key,
    long sizeBytes,
    ObjectAttributes attributes,
    List<StreamRange> streamRanges) {

  public WrittenObject {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(attributes, "attributes");
    streamRanges = List.copyOf(streamRanges);
  }
}
