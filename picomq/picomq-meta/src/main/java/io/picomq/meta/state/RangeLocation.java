package io.picomq.meta.state;

/** Where a stream's records {@code [startOffset, endOffset)} live: in object {@code objectId}. */
public record RangeLocation(long objectId, long startOffset, long endOffset) {}
