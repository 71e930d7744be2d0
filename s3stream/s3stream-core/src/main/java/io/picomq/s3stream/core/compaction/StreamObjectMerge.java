package io.picomq.s3stream.core.compaction;

import io.picomq.s3stream.api.ObjectMetadata;
import java.util.List;

/**
 * Stream objects of one stream to replace by one new stream object: either several that continue
 * each other, or one a trim left straddling the stream's start offset (rewritten without the
 * batches below it).
 *
 * @param startOffset the stream's start offset at planning time; batches ending at or before it are
 *     left behind
 * @param sources the objects, in offset order, their ranges continuing each other
 */
public record StreamObjectMerge(long streamId, long startOffset, List<ObjectMetadata> sources) {

  public StreamObjectMerge {
    sources = List.copyOf(sources);
    if (sources.isEmpty()) {
      throw new IllegalArgumentException("a merge of stream " + streamId + " needs a source");
    }
  }

  /** Bytes of the source objects. */
  public long sizeBytes() {
    return sources.stream().mapToLong(ObjectMetadata::sizeBytes).sum();
  }
}
