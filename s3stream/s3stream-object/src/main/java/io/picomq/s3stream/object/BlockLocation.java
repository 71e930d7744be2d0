package io.picomq.s3stream.object;

/**
 * Where the bytes of one data block are: in object {@code objectId}, at {@code
 * entry.startPosition()} for {@code entry.blockSize()} bytes. For a normal object the object is the
 * one whose index held the entry; for a composite object it is the component the entry links.
 *
 * @param objectId the object holding the block's bytes
 * @param entry the index entry that describes the block
 */
public record BlockLocation(long objectId, IndexEntry entry) {}
