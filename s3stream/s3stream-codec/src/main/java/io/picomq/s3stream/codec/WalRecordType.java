package io.picomq.s3stream.codec;

/** What a framed WAL record holds; the magic number of its header says which. */
public enum WalRecordType {
  /** One encoded record batch. */
  DATA(0x87654321),
  /** Filler the reader skips; its body is zeros and its body CRC is written as 0. */
  PADDING(0x76543210);

  private final int magic;

  WalRecordType(int magic) {
    this.magic = magic;
  }

  /** The magic number written in the first four bytes of the record header. */
  public int magic() {
    return magic;
  }
}
