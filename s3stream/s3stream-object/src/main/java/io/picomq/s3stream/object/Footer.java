package io.picomq.s3stream.object;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.CorruptDataException.Reason;

/**
 * The last 48 bytes of every data object: where the index block is, and what kind of object this
 * is.
 *
 * <pre>
 *   indexStart i64 | indexLength i32 | 28 reserved zero bytes | magic i64
 * </pre>
 *
 * <p>The index block always ends where the footer begins, so {@code indexStart + indexLength ==
 * objectSize - 48}; {@link #decode} checks that equation, the reserved zeros and the magic, which
 * makes every single corrupted footer byte detectable.
 *
 * @param indexStart position of the index block in the object
 * @param indexLength bytes of the index block, a multiple of {@link IndexEntry#SIZE}
 * @param type the object kind, given by the magic
 */
public record Footer(long indexStart, int indexLength, ObjectType type) {

  /** Bytes of the footer. */
  public static final int SIZE = 48;

  private static final int RESERVED_BYTES = SIZE - 8 - 4 - 8;

  public Footer {
    if (indexStart < 0 || indexLength < 0 || indexLength % IndexEntry.SIZE != 0) {
      throw new IllegalArgumentException(
          "bad footer: indexStart " + indexStart + ", indexLength " + indexLength);
    }
  }

  /** Number of index entries the index block holds. */
  public int entryCount() {
    return indexLength / IndexEntry.SIZE;
  }

  /** Appends the 48 footer bytes to {@code out}; does not release it. */
  public void encodeTo(ByteBuf out) {
    out.writeLong(indexStart).writeInt(indexLength).writeZero(RESERVED_BYTES);
    out.writeLong(type.footerMagic());
  }

  /**
   * Decodes and checks the footer held by the last {@link #SIZE} readable bytes of {@code tail},
   * the tail of an object of {@code objectSize} bytes. Moves no index and releases nothing.
   *
   * @param key the object's key, named in error messages
   * @throws CorruptDataException if there are fewer than 48 bytes, the magic is unknown, a reserved
   *     byte is not zero, or the index block does not end exactly where the footer begins
   */
  public static Footer decode(ByteBuf tail, long objectSize, String key) {
    if (tail.readableBytes() < SIZE || objectSize < SIZE) {
      throw new CorruptDataException(
          Reason.TRUNCATED, "object " + key + " has " + objectSize + " bytes, less than a footer");
    }
    int at = tail.writerIndex() - SIZE;
    long magic = tail.getLong(at + SIZE - 8);
    ObjectType type = typeOf(magic, key);
    for (int i = 0; i < RESERVED_BYTES; i++) {
      if (tail.getByte(at + 12 + i) != 0) {
        throw new CorruptDataException(
            Reason.INCONSISTENT,
            "object " + key + ": reserved footer byte " + (12 + i) + " is set");
      }
    }
    long indexStart = tail.getLong(at);
    int indexLength = tail.getInt(at + 8);
    long footerStart = objectSize - SIZE;
    if (indexStart < 0
        || indexLength < 0
        || indexLength % IndexEntry.SIZE != 0
        || indexStart > footerStart
        || indexStart + indexLength != footerStart) {
      throw new CorruptDataException(
          Reason.BAD_LENGTH,
          "object "
              + key
              + ": index block ["
              + indexStart
              + ", +"
              + indexLength
              + ") must be whole 36-byte entries ending at the footer, at "
              + footerStart);
    }
    return new Footer(indexStart, indexLength, type);
  }

  private static ObjectType typeOf(long magic, String key) {
    for (ObjectType type : ObjectType.values()) {
      if (type.footerMagic() == magic) {
        return type;
      }
    }
    throw new CorruptDataException(
        Reason.UNKNOWN_MAGIC,
        "object "
            + key
            + ": footer magic 0x"
            + Long.toHexString(magic)
            + " is not a data object's");
  }
}
