package io.picomq.s3stream.objectstore;

/**
 * A resolved byte range {@code [start, end)} of one object, checked against its size.
 *
 * <p>The rule every backend applies to {@link ObjectStore#get}{@code (key, start, end)} on an
 * object of {@code size} bytes, with {@code end == -1} meaning {@code size}:
 *
 * <pre>
 *   size 10, (0, -1)  -> [0, 10)   the whole object
 *   size 10, (4, 7)   -> [4, 7)    3 bytes
 *   size 10, (10, -1) -> [10, 10)  empty: the end of an object is a valid place to start
 *   size 10, (3, 3)   -> [3, 3)    empty
 *   size 10, (8, 11)  -> error     past the end
 *   size 10, (11, -1) -> error     starts past the end
 *   any,     (5, 4)   -> error     end before start
 *   any,     (-1, 4)  -> error     negative start
 * </pre>
 *
 * @param start first byte, inclusive
 * @param end last byte, exclusive
 */
public record ObjectRange(long start, long end) {

  public ObjectRange {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("bad range [" + start + ", " + end + ")");
    }
  }

  /** Number of bytes in the range. */
  public long lengthBytes() {
    return end - start;
  }

  /**
   * Checks the shape of a requested range before the object's size is known, so a backend can
   * reject it without a round trip.
   *
   * @throws ObjectStoreException of kind {@link ObjectStoreException.Kind#INVALID_ARGUMENT}
   */
  public static void checkRequest(String key, long start, long end) {
    if (start < 0 || end < -1 || (end != -1 && end < start)) {
      throw invalid(key, start, end, "start must be >= 0 and end must be -1 or >= start");
    }
  }

  /**
   * Resolves a requested range against an object of {@code sizeBytes} bytes.
   *
   * @throws ObjectStoreException of kind {@link ObjectStoreException.Kind#INVALID_ARGUMENT} when
   *     the range is malformed or reaches past the object
   */
  public static ObjectRange resolve(String key, long start, long end, long sizeBytes) {
    checkRequest(key, start, end);
    long resolvedEnd = end == -1 ? sizeBytes : end;
    if (start > sizeBytes || resolvedEnd > sizeBytes) {
      throw invalid(key, start, end, "the object has only " + sizeBytes + " bytes");
    }
    return new ObjectRange(start, resolvedEnd);
  }

  private static ObjectStoreException invalid(String key, long start, long end, String why) {
    return new ObjectStoreException(
        ObjectStoreException.Kind.INVALID_ARGUMENT,
        "range [" + start + ", " + end + ") of '" + key + "' is invalid: " + why);
  }
}
