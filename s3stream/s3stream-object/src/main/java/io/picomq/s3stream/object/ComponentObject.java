package io.picomq.s3stream.object;

/**
 * One row of a composite object's component table: entries {@code firstEntry} up to the next row's
 * {@code firstEntry} (or the end of the index) point into object {@code objectId}.
 *
 * <pre>
 *   objectId i64 | firstEntry i32 | bucket u16      (14 bytes)
 * </pre>
 *
 * @param objectId the component object, {@code >= 0}
 * @param firstEntry index of the first index entry that belongs to it
 * @param bucket the bucket the component lives in ({@link ObjectAttributes#bucket()}); PicoMQ
 *     writes 0
 */
public record ComponentObject(long objectId, int firstEntry, int bucket) {

  /** Bytes of one encoded row. */
  public static final int SIZE = 8 + 4 + 2;

  public ComponentObject {
    if (objectId < 0 || firstEntry < 0 || bucket < 0 || bucket > 0xFFFF) {
      throw new IllegalArgumentException(
          "bad component: object "
              + objectId
              + ", first entry "
              + firstEntry
              + ", bucket "
              + bucket);
    }
  }
}
