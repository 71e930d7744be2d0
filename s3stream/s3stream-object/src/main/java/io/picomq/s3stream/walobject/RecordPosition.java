package io.picomq.s3stream.walobject;

/**
 * Where one framed record sits in the WAL's offset space.
 *
 * @param offset the WAL offset of the record's header
 * @param size bytes of the framed record (24-byte header plus body)
 */
public record RecordPosition(long offset, int size) {

  public RecordPosition {
    if (offset < 0 || size < 0) {
      throw new IllegalArgumentException("offset and size must be >= 0: " + offset + ", " + size);
    }
  }

  /** The WAL offset just after the record. */
  public long nextOffset() {
    return offset + size;
  }
}
