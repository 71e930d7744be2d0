package io.picomq.s3stream.object;

/**
 * The two kinds of data object. Both end with the same 48-byte footer; its magic number says which
 * kind the bytes are, and the object's {@link ObjectAttributes} say the same in the metadata.
 */
public enum ObjectType {
  /** Data blocks, then the index over them, then the footer. */
  NORMAL(0, 0x88E241B785F4CFF7L),
  /**
   * No data of its own: a table of component objects, then an index whose entries point into the
   * components, then the footer. Compaction builds one to merge objects without copying data.
   */
  COMPOSITE(1, 0x88E241B785F4CFF8L);

  private final int attributeBits;
  private final long footerMagic;

  ObjectType(int attributeBits, long footerMagic) {
    this.attributeBits = attributeBits;
    this.footerMagic = footerMagic;
  }

  /** The value of this type in bits 0-1 of {@link ObjectAttributes}. */
  public int attributeBits() {
    return attributeBits;
  }

  /** The last 8 bytes of every object of this type. */
  public long footerMagic() {
    return footerMagic;
  }
}
