package io.picomq.s3stream.api;

import java.util.List;

/** Replaces {@code sourceObjectIds} of one stream by the single stream object {@code target}. */
public record CompactStreamObjectRequest(StreamObject target, List<Long> sourceObjectIds) {
  public CompactStreamObjectRequest {
    sourceObjectIds = List.copyOf(sourceObjectIds);
  }
}
