package io.picomq.s3stream.walobject;

/**
 * The header at the start of every WAL object. Two versions exist; a reader accepts both, a writer
 * writes {@link V1}.
 *
 * <p>Layout (big-endian), v0 (40 bytes): {@code magic u32 = 0x12345678 | startOffset i64 |
 * bodyLength i64 | stickyRecordLength i64 | nodeId u32 | nodeEpoch i64}. v1 (48 bytes): {@code
 * magic u32 = 0xEDCBA987}, the same five fields, then {@code trimOffset i64}.
 */
public sealed interface WalObjectHeader {

  /** WAL offset of the first record in the object. */
  long startOffset();

  /** Bytes of framed records after the header. */
  long bodyLength();

  /** Always 0 as the upstream writes it; kept so a header re-encodes to the same bytes. */
  long stickyRecordLength();

  /** The node that wrote the object. */
  int nodeId();

  /** The node epoch the object was written under. */
  long nodeEpoch();

  /** The magic number of this version. */
  int magic();

  /** Bytes of this header. */
  int size();

  /**
   * The version-0 header, written by older upstream releases; it carries no trim offset.
   *
   * @param startOffset WAL offset of the first record
   * @param bodyLength bytes of framed records after the header
   * @param stickyRecordLength 0 as written by the upstream
   * @param nodeId the writing node
   * @param nodeEpoch the writing node's epoch
   */
  record V0(long startOffset, long bodyLength, long stickyRecordLength, int nodeId, long nodeEpoch)
      implements WalObjectHeader {

    public static final int MAGIC = 0x12345678;
    public static final int SIZE = 40;

    public V0 {
      checkBodyLength(bodyLength);
    }

    @Override
    public int magic() {
      return MAGIC;
    }

    @Override
    public int size() {
      return SIZE;
    }
  }

  /**
   * The version-1 header; it piggybacks the writer's trim offset so recovery learns it from the
   * newest object alone.
   *
   * @param startOffset WAL offset of the first record
   * @param bodyLength bytes of framed records after the header
   * @param stickyRecordLength 0 as written by the upstream
   * @param nodeId the writing node
   * @param nodeEpoch the writing node's epoch
   * @param trimOffset the WAL offset of the last record trimmed (inclusive) when the object was
   *     written, or {@link #NOT_TRIMMED}
   */
  record V1(
      long startOffset,
      long bodyLength,
      long stickyRecordLength,
      int nodeId,
      long nodeEpoch,
      long trimOffset)
      implements WalObjectHeader {

    public static final int MAGIC = 0xEDCBA987;
    public static final int SIZE = 48;

    /** The trim offset of a WAL that has never been trimmed. */
    public static final long NOT_TRIMMED = -1;

    public V1 {
      checkBodyLength(bodyLength);
    }

    @Override
    public int magic() {
      return MAGIC;
    }

    @Override
    public int size() {
      return SIZE;
    }
  }

  private static void checkBodyLength(long bodyLength) {
    if (bodyLength < 0) {
      throw new IllegalArgumentException("bodyLength must be >= 0: " + bodyLength);
    }
  }
}
