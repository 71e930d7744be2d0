package io.picomq.s3stream.api;

/** A stream object to commit: one stream's contiguous range in its own object. */
public record StreamObject(
    long objectId, long sizeBytes, StreamOffsetRange range, int attributes) {}
