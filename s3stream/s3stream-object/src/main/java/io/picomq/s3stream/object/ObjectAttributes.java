package io.picomq.s3stream.object;

/**
 * The 32-bit attribute word the metadata keeps beside each object id, bit-compatible with the
 * upstream's:
 *
 * <pre>
 *   bits 0-1   object type: 0 normal, 1 composite ({@link ObjectType})
 *   bits 2-17  bucket index (unsigned 16 bits); PicoMQ keeps data objects in bucket 0
 *   bit  18    deep delete: deleting the object also deletes what it links (composite objects)
 *   bits 19-31 unused, zero
 * </pre>
 *
 * @param value the raw word as stored
 */
public record ObjectAttributes(int value) {

  private static final int TYPE_MASK = 0x3;
  private static final int BUCKET_SHIFT = 2;
  private static final int BUCKET_MASK = 0xFFFF;
  private static final int DEEP_DELETE_BIT = 1 << 18;

  /** A normal object in bucket 0. */
  public static final ObjectAttributes NORMAL = of(ObjectType.NORMAL, 0, false);

  /** A composite object in bucket 0 whose deletion also deletes its components. */
  public static final ObjectAttributes COMPOSITE = of(ObjectType.COMPOSITE, 0, true);

  /**
   * Builds the word.
   *
   * @param bucket the bucket index, {@code 0..65535}
   */
  public static ObjectAttributes of(ObjectType type, int bucket, boolean deepDelete) {
    if (bucket < 0 || bucket > BUCKET_MASK) {
      throw new IllegalArgumentException("bucket must be in [0, 65535]: " + bucket);
    }
    int value = type.attributeBits() | (bucket << BUCKET_SHIFT);
    return new ObjectAttributes(deepDelete ? value | DEEP_DELETE_BIT : value);
  }

  /**
   * The object type these bits declare.
   *
   * @throws IllegalStateException for the type values 2 and 3, which no version defines
   */
  public ObjectType type() {
    int bits = value & TYPE_MASK;
    for (ObjectType type : ObjectType.values()) {
      if (type.attributeBits() == bits) {
        return type;
      }
    }
    throw new IllegalStateException(
        "attributes 0x" + Integer.toHexString(value) + " name the undefined type " + bits);
  }

  /** The bucket index, {@code 0..65535}. */
  public int bucket() {
    return (value >>> BUCKET_SHIFT) & BUCKET_MASK;
  }

  /** Whether deleting this object also deletes the objects it links. */
  public boolean deepDelete() {
    return (value & DEEP_DELETE_BIT) != 0;
  }
}
